//! Splitting a line into words the way Ansible does (Python's `shlex` in
//! POSIX mode): whitespace separates, single quotes keep everything,
//! double quotes keep everything but `\"` and `\\`, a backslash outside
//! quotes escapes the next character, and `#` at the start of a word begins
//! a comment when asked. Used for INI host lines and for the
//! `ansible_ssh_*_args` variables.

/// Splits `text` into words; `#` starts a comment.
pub fn split_commented(text: &str) -> Result<Vec<String>, String> {
    split_words(text, true)
}

/// Splits `text` into words (`#` is an ordinary character).
pub fn split(text: &str) -> Result<Vec<String>, String> {
    split_words(text, false)
}

fn split_words(text: &str, comments: bool) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if comments && !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a ' quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a \" quote is not closed".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a \" quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a line ends in a backslash".into()),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_shlex() {
        assert_eq!(
            split_commented("h1 a=1 b='x y' c=\"q \\\" z\" # comment").unwrap(),
            vec!["h1", "a=1", "b=x y", "c=q \" z"]
        );
        assert_eq!(split_commented("h#1 # c").unwrap(), vec!["h#1"]);
        assert_eq!(
            split("-o 'A B' x\\ y #z").unwrap(),
            vec!["-o", "A B", "x y", "#z"]
        );
        assert_eq!(split("").unwrap(), Vec::<String>::new());
        assert_eq!(split("''").unwrap(), vec![""]);
        assert!(split("a 'b").unwrap_err().contains("not closed"));
        assert!(split("a \"b").unwrap_err().contains("not closed"));
        assert!(split("a\\").unwrap_err().contains("backslash"));
    }
}
