extension RandomAccessCollection {
    /// The index of the first element for which `belongsInSecondPartition` holds, in a
    /// collection it partitions (every element for which it fails comes first), or
    /// `endIndex` when there is none: a binary search. Swift Algorithms'
    /// `partitioningIndex(where:)`, which this package does not depend on.
    func partitioningIndex(where belongsInSecondPartition: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var remaining = count
        while remaining > 0 {
            let half = remaining / 2
            let middle = index(low, offsetBy: half)
            if try belongsInSecondPartition(self[middle]) {
                remaining = half
            } else {
                low = index(after: middle)
                remaining -= half + 1
            }
        }
        return low
    }
}
