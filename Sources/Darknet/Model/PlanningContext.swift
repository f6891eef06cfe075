import Kernels

/// What a layer's needs are planned against (`LayerType.workspaceCount`): the network's batch,
/// the kernels it runs with, and the method chosen for the layer (a convolution's; nil for the
/// others). All of it is known before any weights exist, so that `auto`'s memory budget
/// (`ConvolutionPlanner`) and `Network` size the workspace by the same question.
struct PlanningContext {
    /// Images per forward pass.
    var batch: Int
    var kernels: KernelContext
    /// The method the layer runs (`ConvolutionPlanner.methods`, or the route a `PreparedModel` built).
    var method: ConvolutionMethod?
}
