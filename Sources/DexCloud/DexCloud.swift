// DexCloud: the signed cloud pass. See the module's DocC catalog (DexCloud.docc).
@_exported import DexModel
