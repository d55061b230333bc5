// DexKit: the glue. Importing it gives a host every module of the SDK's app side, so that one
// `import DexKit` is enough for a scanner app; DexCloudServer is for backends and is imported
// on its own.
@_exported import DexCloud
@_exported import DexImaging
@_exported import DexModel
@_exported import DexStorage
