//! A small XML reader for DiskSpd's `-Rxml` results: elements, attributes,
//! text, the five predefined entities and numeric references; the
//! declaration, comments and processing instructions skipped. DiskSpd writes
//! nothing else (XmlResultParser.cpp), and candor has no XML dependency to
//! read one kind of file. Anything else (a DTD, CDATA, a tag left open, a
//! closing tag that does not match) is refused with its byte offset, and the
//! tree is bounded: a file cannot take the machine's memory or stack.

/// At most this many elements: DiskSpd writes a few hundred per thread and
/// per second of `-D` buckets; a million is an hour of 64 threads' buckets.
pub const MAX_ELEMENTS: usize = 1_000_000;

/// At most this deep: DiskSpd's results nest about 8 levels.
pub const MAX_DEPTH: usize = 64;

/// One element.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    /// The text directly inside it, entities resolved, trimmed.
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Every child named `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The text of the child `name`, if present.
    pub fn text_of(&self, name: &str) -> Option<&str> {
        self.child(name).map(|c| c.text.as_str())
    }
}

/// Reads the document's root element.
pub fn parse(text: &str) -> Result<Element, String> {
    let mut reader = XmlReader {
        s: text.as_bytes(),
        text,
        at: 0,
        elements: 0,
    };
    reader.skip_misc()?;
    if reader.at >= reader.s.len() || reader.s[reader.at] != b'<' {
        return Err(format!("byte {}: no root element", reader.at));
    }
    let root = reader.element(0)?;
    reader.skip_misc()?;
    if reader.at < reader.s.len() {
        return Err(format!(
            "byte {}: text after the root element </{}>",
            reader.at, root.name
        ));
    }
    Ok(root)
}

struct XmlReader<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
    elements: usize,
}

impl XmlReader<'_> {
    fn starts(&self, prefix: &str) -> bool {
        self.s[self.at..].starts_with(prefix.as_bytes())
    }

    /// Skips white space, the declaration, comments and processing instructions.
    fn skip_misc(&mut self) -> Result<(), String> {
        loop {
            while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            if self.starts("<?") {
                self.skip_past("?>")?;
            } else if self.starts("<!--") {
                self.skip_past("-->")?;
            } else if self.starts("<!") {
                return Err(format!(
                    "byte {}: a DTD or CDATA section, which DiskSpd never writes",
                    self.at
                ));
            } else {
                return Ok(());
            }
        }
    }

    fn skip_past(&mut self, end: &str) -> Result<(), String> {
        match self.text[self.at..].find(end) {
            Some(i) => {
                self.at += i + end.len();
                Ok(())
            }
            None => Err(format!("byte {}: unterminated (no {end})", self.at)),
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let start = self.at;
        while self.at < self.s.len()
            && (self.s[self.at].is_ascii_alphanumeric() || b"_-.:".contains(&self.s[self.at]))
        {
            self.at += 1;
        }
        if start == self.at {
            return Err(format!("byte {start}: a name was expected"));
        }
        Ok(self.text[start..self.at].to_string())
    }

    fn spaces(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// An element starting at `<`, its children read recursively.
    fn element(&mut self, depth: usize) -> Result<Element, String> {
        if depth >= MAX_DEPTH {
            return Err(format!(
                "byte {}: elements nested over {MAX_DEPTH} deep",
                self.at
            ));
        }
        self.elements += 1;
        if self.elements > MAX_ELEMENTS {
            return Err(format!("more than {MAX_ELEMENTS} elements"));
        }
        if crate::cancel::cancelled() {
            return Err("stopped by a signal".into());
        }
        self.at += 1; // '<'
        let mut e = Element {
            name: self.name()?,
            ..Element::default()
        };
        loop {
            self.spaces();
            match self.s.get(self.at) {
                Some(b'/') if self.s.get(self.at + 1) == Some(&b'>') => {
                    self.at += 2;
                    return Ok(e);
                }
                Some(b'>') => {
                    self.at += 1;
                    break;
                }
                Some(_) => {
                    let key = self.name()?;
                    self.spaces();
                    if self.s.get(self.at) != Some(&b'=') {
                        return Err(format!("byte {}: attribute {key} without a value", self.at));
                    }
                    self.at += 1;
                    self.spaces();
                    let quote = match self.s.get(self.at) {
                        Some(q @ (b'"' | b'\'')) => *q,
                        _ => return Err(format!("byte {}: attribute {key} not quoted", self.at)),
                    };
                    self.at += 1;
                    let start = self.at;
                    while self.at < self.s.len() && self.s[self.at] != quote {
                        self.at += 1;
                    }
                    if self.at >= self.s.len() {
                        return Err(format!("byte {start}: attribute {key} never closed"));
                    }
                    let value = unescape(&self.text[start..self.at], start)?;
                    self.at += 1;
                    e.attributes.push((key, value));
                }
                None => return Err(format!("byte {}: <{} never closed", self.at, e.name)),
            }
        }
        let mut text = String::new();
        loop {
            let start = self.at;
            while self.at < self.s.len() && self.s[self.at] != b'<' {
                self.at += 1;
            }
            text.push_str(&unescape(&self.text[start..self.at], start)?);
            if self.at >= self.s.len() {
                return Err(format!("<{}> is never closed", e.name));
            }
            if self.starts("</") {
                self.at += 2;
                let end = self.name()?;
                if end != e.name {
                    return Err(format!("byte {}: </{end}> closes <{}>", self.at, e.name));
                }
                self.spaces();
                if self.s.get(self.at) != Some(&b'>') {
                    return Err(format!("byte {}: </{end} not ended by >", self.at));
                }
                self.at += 1;
                e.text = text.trim().to_string();
                return Ok(e);
            }
            if self.starts("<!--") || self.starts("<?") || self.starts("<!") {
                self.skip_misc_inside()?;
                continue;
            }
            let child = self.element(depth + 1)?;
            e.children.push(child);
        }
    }

    fn skip_misc_inside(&mut self) -> Result<(), String> {
        if self.starts("<!--") {
            self.skip_past("-->")
        } else if self.starts("<?") {
            self.skip_past("?>")
        } else {
            Err(format!(
                "byte {}: a DTD or CDATA section, which DiskSpd never writes",
                self.at
            ))
        }
    }
}

/// Text with XML's entities and character references resolved.
fn unescape(raw: &str, offset: usize) -> Result<String, String> {
    if !raw.contains('&') {
        return Ok(raw.to_string());
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let Some(end) = rest[i..].find(';') else {
            return Err(format!(
                "byte {}: & without ;",
                offset + raw.len() - rest.len() + i
            ));
        };
        let entity = &rest[i + 1..i + end];
        let c = match entity {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            e if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("&{e}; is not a character"))?,
            e if e.starts_with('#') => e[1..]
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("&{e}; is not a character"))?,
            e => return Err(format!("&{e}; is not an XML entity")),
        };
        out.push(c);
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_attributes_text_and_entities() {
        let doc = parse(
            "<?xml version=\"1.0\"?>\n<!-- c --><Results>\n <Group Group=\"0\" Mask='0xf'/>\n <Path>a &amp; b&#x41;</Path><Empty></Empty>\n</Results>\n",
        )
        .unwrap();
        assert_eq!(doc.name, "Results");
        assert_eq!(doc.children.len(), 3);
        let g = doc.child("Group").unwrap();
        assert_eq!(
            g.attributes,
            vec![("Group".into(), "0".into()), ("Mask".into(), "0xf".into())]
        );
        assert_eq!(doc.text_of("Path"), Some("a & bA"));
        assert_eq!(doc.text_of("Empty"), Some(""));
    }

    #[test]
    fn malformed_documents_are_refused_with_their_place() {
        for (doc, why) in [
            ("<a><b></a>", "</a> closes <b>"),
            ("<a>", "never closed"),
            ("<a/><b/>", "text after the root element"),
            ("<!DOCTYPE a><a/>", "DTD"),
            ("<a>&nbsp;</a>", "&nbsp; is not an XML entity"),
            ("just text", "no root element"),
            ("<a x=1/>", "not quoted"),
        ] {
            let e = parse(doc).unwrap_err();
            assert!(e.contains(why), "{doc}: {e}");
        }
    }

    #[test]
    fn depth_and_size_are_bounded() {
        let deep = "<a>".repeat(MAX_DEPTH + 1) + &"</a>".repeat(MAX_DEPTH + 1);
        assert!(parse(&deep).unwrap_err().contains("nested over"));
        let wide = format!("<a>{}</a>", "<b/>".repeat(MAX_ELEMENTS));
        assert!(parse(&wide).unwrap_err().contains("more than"));
    }
}
