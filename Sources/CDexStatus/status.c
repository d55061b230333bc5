// CDexStatus has nothing to compile: its header (include/CDexStatus.h) is the target. SwiftPM
// wants a source file in a C target, and this is it.
