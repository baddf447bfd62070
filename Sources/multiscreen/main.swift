import ArgumentParser

Multiscreen.main()
