import ArgumentParser
import Darknet

/// `--gemm`: the library the f32 im2col and 1×1 products run on (`ExecutionOptions.gemm`,
/// `GEMMLibrary`). Declared here once, for every command that runs or plans a network.
package struct GEMMOption: ParsableArguments {
    @Option(help: "Library of the f32 im2col and 1x1 products: openblas, or onednn (dnnl_sgemm, one call per part on the engine's workers; needs oneDNN, see --version). Winograd layers stay on OpenBLAS.")
    package var gemm: GEMMLibrary = .openblas

    package init() {}
}

extension GEMMLibrary: ExpressibleByArgument {}
