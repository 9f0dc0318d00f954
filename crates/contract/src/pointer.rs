//! JSON Pointer (RFC 6901) building.

/// Appends one reference token to a pointer, escaping `~` and `/`.
pub fn push(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// The reference tokens of a pointer, unescaped (`~1` is `/`, `~0` is `~`, in that order).
pub fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Appends an array index to a pointer.
pub fn push_index(pointer: &str, index: usize) -> String {
    format!("{pointer}/{index}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_rfc_6901() {
        assert_eq!(push("/tools/0", "a/b~c"), "/tools/0/a~1b~0c");
        assert_eq!(push("", "tools"), "/tools");
        assert_eq!(tokens("/tools/0/a~1b~0c"), ["tools", "0", "a/b~c"]);
        assert!(tokens("").is_empty());
        assert_eq!(push_index("/tools", 3), "/tools/3");
    }
}
