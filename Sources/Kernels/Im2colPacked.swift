/// `Im2col.unfoldSerially` written straight into `PackedGEMM.packColumns`' layout, for the
/// packed kernel to multiply without packing the band again (`Im2colBands` with packed weights).
///
/// Matrix rows (channel, tap) are unfolded a few at a time into scratch (`Im2col`'s row code, so
/// the values are `unfold`'s bit for bit), then their runs are copied into the panels: for each K
/// block `[k0, k0 + kk)`, the panel of `width` columns starting at column `c0` holds row `r`'s
/// values at `k0 · columns + c0 · kk + (r − k0) · width` (`PackedGEMM.panelWidth`). The rows stay
/// in L1 while they are copied; unfolding the whole band first and packing it after wrote and
/// read the band twice more (yolov7-tiny's 3×3/2 layer on 32 channels: its itcopy was 12% of
/// the layer on one core).
extension Im2col {
    /// Matrix rows unfolded together before they are copied into the panels: each panel then
    /// takes `packedRowGroup · unroll` contiguous floats at a time (one row at a time wrote 64
    /// bytes to each of a band's panels, 18 KB apart, and took twice as long).
    static let packedRowGroup = 8

    /// Output rows `outputRows` of the image at `image` unfolded into `packed` in the packed
    /// kernel's layout for a kernel of `unroll` (`unrollM`) columns a panel: `channels·size²`
    /// rows × `outputRows.count · outWidth` columns. `rows` is scratch for `packedRowGroup`
    /// matrix rows (`packedRowGroup · outputRows.count · outWidth` floats).
    static func unfoldPacked(_ image: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
                             size: Int, stride: Int, pad: Int, strideY: Int, dilation: Int,
                             outputRows: Range<Int>, channelStride: Int, unroll: Int,
                             rows: UnsafeMutablePointer<Float>, into packed: UnsafeMutablePointer<Float>) {
        let outWidth = (width + 2 * pad - dilation * (size - 1) - 1) / stride + 1
        let columns = outputRows.count * outWidth, k = channels * size * size
        let whole = columns / unroll * unroll
        var r0 = 0
        while r0 < k {
            let k0 = r0 / PackedGEMM.kBlock * PackedGEMM.kBlock
            let kk = min(PackedGEMM.kBlock, k - k0)
            let count = min(packedRowGroup, k0 + kk - r0)
            for i in 0..<count {
                let r = r0 + i
                let kx = r % size, ky = (r / size) % size, channel = r / size / size
                unfoldRow(plane: image + channel * channelStride, height: height, width: width,
                          kx: kx * dilation, ky: ky * dilation, stride: stride, strideY: strideY, pad: pad,
                          outputRows: outputRows, outWidth: outWidth, into: rows + i * columns)
            }
            // Whole panels: `unroll` floats a row, the group's rows one after another.
            let block = packed + k0 * columns + (r0 - k0) * unroll
            var c0 = 0
            while c0 < whole {
                let target = block + c0 * kk
                if unroll == 16 {
                    for i in 0..<count {
                        let values = UnsafeRawPointer(rows + i * columns + c0).loadUnaligned(as: SIMD16<Float>.self)
                        UnsafeMutableRawPointer(target + i * 16).storeBytes(of: values, as: SIMD16<Float>.self)
                    }
                } else {
                    for i in 0..<count { (target + i * unroll).update(from: rows + i * columns + c0, count: unroll) }
                }
                c0 += unroll
            }
            // The tail's narrower panels.
            while c0 < columns {
                let panel = PackedGEMM.panelWidth(remaining: columns - c0, unroll: unroll)
                let target = packed + k0 * columns + c0 * kk + (r0 - k0) * panel
                for i in 0..<count {
                    for j in 0..<panel { target[i * panel + j] = rows[i * columns + c0 + j] }
                }
                c0 += panel
            }
            r0 += count
        }
    }
}
