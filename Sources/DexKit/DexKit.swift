// DexKit: see the module's DocC catalog.
@_exported import DexModel
