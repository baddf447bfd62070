// The request checks and parsers live in a module without the HTTP server (so the fuzz targets can build them
// alone); users of the remote keep getting them from here.
@_exported import RemoteRequests
