//! Disjoint sets over `0..n`, for turning near-duplicate pairs into
//! clusters (connected components).

/// A union-find forest with union by size and path halving: any sequence
/// of `m` operations costs about `m` steps in practice.
#[derive(Debug, Clone)]
pub(crate) struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    /// `n` singleton sets.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    /// The root of the set holding `x`; an `x` out of range is its own root.
    pub fn find(&mut self, mut x: usize) -> usize {
        while let Some(&parent) = self.parent.get(x) {
            if parent == x {
                break;
            }
            // Path halving: point `x` at its grandparent as we climb.
            #[expect(
                clippy::indexing_slicing,
                reason = "every entry of `parent` is below n: `new` starts them at 0..n and `union` links only roots below n"
            )]
            let grandparent = self.parent[parent];
            if let Some(slot) = self.parent.get_mut(x) {
                *slot = grandparent;
            }
            x = grandparent;
        }
        x
    }

    /// Joins the sets of `a` and `b`. An index out of range stays a set of
    /// its own (it is never linked, so every parent stays below n).
    pub fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let (Some(&size_a), Some(&size_b)) = (self.size.get(a), self.size.get(b)) else {
            return;
        };
        // Hang the smaller tree under the larger, keeping trees shallow.
        let (small, large) = if size_a < size_b { (a, b) } else { (b, a) };
        if let Some(slot) = self.parent.get_mut(small) {
            *slot = large;
        }
        if let Some(slot) = self.size.get_mut(large) {
            *slot = size_a + size_b;
        }
    }

    /// The sets with more than one member, each as its members in
    /// increasing order, ordered by their smallest member.
    pub fn groups(&mut self) -> Vec<Vec<usize>> {
        let n = self.parent.len();
        // Slot of each root's group in `groups`, assigned in order of the
        // root's first (smallest) member.
        let mut slot_of_root = vec![usize::MAX; n];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for x in 0..n {
            let root = self.find(x);
            #[expect(
                clippy::indexing_slicing,
                reason = "the root of an x below n is below n (see `find`), and `size` has n entries"
            )]
            let size = self.size[root];
            if size < 2 {
                continue;
            }
            let Some(slot) = slot_of_root.get_mut(root) else {
                continue;
            };
            if *slot == usize::MAX {
                *slot = groups.len();
                groups.push(Vec::new());
            }
            if let Some(group) = groups.get_mut(*slot) {
                group.push(x);
            }
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::UnionFind;

    #[test]
    fn joins_transitively_and_groups_in_order() {
        let mut sets = UnionFind::new(8);
        sets.union(5, 1);
        sets.union(3, 7);
        sets.union(7, 5);
        sets.union(6, 2);
        assert_eq!(sets.find(1), sets.find(3));
        assert_ne!(sets.find(1), sets.find(2));
        assert_eq!(sets.groups(), vec![vec![1, 3, 5, 7], vec![2, 6]]);
    }

    #[test]
    fn singletons_are_not_groups() {
        let mut sets = UnionFind::new(3);
        sets.union(1, 1);
        assert!(sets.groups().is_empty());
        assert_eq!(sets.find(10), 10);
    }

    #[test]
    fn indexes_out_of_range_are_never_linked() {
        let mut sets = UnionFind::new(3);
        sets.union(1, 10);
        sets.union(10, 2);
        assert_eq!((sets.find(1), sets.find(2), sets.find(10)), (1, 2, 10));
        sets.union(0, 2);
        assert_eq!(sets.groups(), vec![vec![0, 2]]);
    }
}
