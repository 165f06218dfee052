//! Which structure a frame holds.

/// The kind byte of a frame, and the name errors give the structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// The database manifest.
    Manifest,
    /// A table design.
    Design,
    /// A table's Huffman code book.
    CodeBook,
    /// A table's block directory.
    Directory,
    /// A block: never framed (see the module docs), named in errors only.
    Block,
}

impl Kind {
    /// Every kind, in byte order.
    pub const ALL: [Kind; 5] = [
        Kind::Manifest,
        Kind::Design,
        Kind::CodeBook,
        Kind::Directory,
        Kind::Block,
    ];

    /// The byte stored in a frame.
    pub const fn byte(self) -> u8 {
        match self {
            Kind::Manifest => 1,
            Kind::Design => 2,
            Kind::CodeBook => 3,
            Kind::Directory => 4,
            Kind::Block => 5,
        }
    }

    /// What errors call a structure of this kind.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Manifest => "manifest",
            Kind::Design => "table design",
            Kind::CodeBook => "code book",
            Kind::Directory => "block directory",
            Kind::Block => "block",
        }
    }

    /// The kind stored as `byte`, if any.
    pub fn from_byte(byte: u8) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.byte() == byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_name_their_kinds() {
        for kind in Kind::ALL {
            assert_eq!(Kind::from_byte(kind.byte()), Some(kind));
        }
        assert_eq!(Kind::from_byte(0), None);
    }
}
