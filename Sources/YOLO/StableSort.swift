/// The ordering of darknet's `nms_comparator` (box.c) on one score: `diff = a - b`;
/// `diff < 0` puts `a` after `b`, `diff > 0` before it, anything else (equal, NaN) counts as a tie.
/// Returns true when `a` may stay before `b`, i.e. the comparator returned <= 0.
@inline(__always)
func darknetKeepsOrder(_ a: Float, _ b: Float) -> Bool {
    !(a - b < 0)
}

/// Sorts `order` (indices into `keys`) by `keys` descending with darknet's comparator, the way
/// glibc's `qsort` does it for darknet: a top-down merge sort (n1 = n/2, left run wins ties),
/// so ties keep their current order and even NaN keys give the same permutation as darknet.
/// O(n log n), one scratch buffer.
func darknetMergeSort(_ order: inout [Int], keys: [Float]) {
    let count = order.count
    if count < 2 { return }
    var scratch = [Int](repeating: 0, count: count)
    order.withUnsafeMutableBufferPointer { items in
        scratch.withUnsafeMutableBufferPointer { temp in
            keys.withUnsafeBufferPointer { keys in
                mergeSort(items, 0, count, temp, keys)
            }
        }
    }
}

private func mergeSort(
    _ items: UnsafeMutableBufferPointer<Int>, _ start: Int, _ count: Int,
    _ temp: UnsafeMutableBufferPointer<Int>, _ keys: UnsafeBufferPointer<Float>
) {
    if count <= 1 { return }
    let leftCount = count / 2
    let rightCount = count - leftCount
    mergeSort(items, start, leftCount, temp, keys)
    mergeSort(items, start + leftCount, rightCount, temp, keys)
    var left = start, leftEnd = start + leftCount
    var right = leftEnd
    let rightEnd = start + count
    var out = 0
    while left < leftEnd && right < rightEnd {
        if darknetKeepsOrder(keys[items[left]], keys[items[right]]) {
            temp[out] = items[left]; left += 1
        } else {
            temp[out] = items[right]; right += 1
        }
        out += 1
    }
    while left < leftEnd {
        temp[out] = items[left]; left += 1; out += 1
    }
    leftEnd = out  // items[right..<rightEnd] are already in place
    for i in 0..<leftEnd { items[start + i] = temp[i] }
}
