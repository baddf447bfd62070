import Outputs

@testable import Screens

/// An output as sway describes a real monitor: "make model serial (connector)".
func monitor(_ registryName: UInt32, _ name: String, make: String = "ACME", model: String = "Panel", serial: String)
    -> OutputInfo
{
    var info = OutputInfo(registryName: registryName)
    info.name = name
    info.make = make
    info.model = model
    info.description = "\(make) \(model) \(serial) (\(name))"
    return info
}
