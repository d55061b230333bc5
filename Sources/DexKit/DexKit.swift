// DexKit: the glue. Importing it gives a host every module.
@_exported import DexCloud
@_exported import DexImaging
@_exported import DexModel
@_exported import DexStorage
