//! Integer arithmetic for option values that use fio's keywords
//! (`size=$mb_memory/4`, `numjobs=$ncpus*2`). fio hands such a value to
//! `bc`, whose default scale of 0 makes every result a whole number
//! (division truncates); candor evaluates the same expressions itself:
//! `+ - * / % ^`, parentheses and unary minus, on whole numbers. Anything
//! else (a unit, a fraction, a word) is an error, where bc would either
//! fail or read a word as a variable worth 0.

/// Evaluates `text` as a bc expression on whole numbers.
pub fn eval(text: &str) -> Result<i128, String> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let v = p.sum()?;
    p.skip_blanks();
    if p.at != p.bytes.len() {
        return Err(format!(
            "'{text}': unexpected '{}' at position {}",
            &text[p.at..],
            p.at + 1
        ));
    }
    Ok(v)
}

/// Parentheses nest at most this deep (the fuzzer finds the stack otherwise).
const MAX_DEPTH: u32 = 64;

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: u32,
}

impl Parser<'_> {
    fn skip_blanks(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_blanks();
        self.bytes.get(self.at).copied()
    }

    /// sum := product (('+' | '-') product)*
    fn sum(&mut self) -> Result<i128, String> {
        let mut v = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let r = self.product()?;
            v = if op == b'+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or("the result is too large")?;
        }
        Ok(v)
    }

    /// product := power (('*' | '/' | '%') power)*
    fn product(&mut self) -> Result<i128, String> {
        let mut v = self.power()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.at += 1;
            let r = self.power()?;
            v = match op {
                b'*' => v.checked_mul(r).ok_or("the result is too large")?,
                _ if r == 0 => return Err("division by zero".into()),
                // bc truncates toward zero, as Rust does.
                b'/' => v / r,
                _ => v % r,
            };
        }
        Ok(v)
    }

    /// power := unary ('^' power)?   (right-associative, as in bc)
    fn power(&mut self) -> Result<i128, String> {
        let base = self.unary()?;
        if self.peek() == Some(b'^') {
            self.at += 1;
            let exp = self.power()?;
            if !(0..=127).contains(&exp) {
                return Err(format!("exponent {exp} is out of range"));
            }
            return base
                .checked_pow(exp as u32)
                .ok_or_else(|| "the result is too large".to_string());
        }
        Ok(base)
    }

    /// unary := '-' unary | atom
    fn unary(&mut self) -> Result<i128, String> {
        if self.peek() == Some(b'-') {
            self.at += 1;
            return Ok(-self.unary()?);
        }
        self.atom()
    }

    /// atom := digits | '(' sum ')'
    fn atom(&mut self) -> Result<i128, String> {
        match self.peek() {
            Some(b'(') => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err("parentheses nest too deep".into());
                }
                self.at += 1;
                let v = self.sum()?;
                if self.peek() != Some(b')') {
                    return Err("a '(' is not closed".into());
                }
                self.at += 1;
                self.depth -= 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.at;
                while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_digit() {
                    self.at += 1;
                }
                if self.bytes.get(self.at) == Some(&b'.') {
                    return Err("fractions are not whole numbers".into());
                }
                std::str::from_utf8(&self.bytes[start..self.at])
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| "a number is too large".to_string())
            }
            Some(c) => Err(format!("'{}' is not a number", c as char)),
            None => Err("the expression ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_like_bc() {
        assert_eq!(eval("24105/4"), Ok(6026));
        assert_eq!(eval("2*3+4"), Ok(10));
        assert_eq!(eval("2*(3+4)"), Ok(14));
        assert_eq!(eval("7%4"), Ok(3));
        assert_eq!(eval("2^3^2"), Ok(512));
        assert_eq!(eval("-7/2"), Ok(-3));
        assert_eq!(eval(" 8 - 2 - 1 "), Ok(5));
        assert!(eval("4/0").is_err());
        assert!(eval("6026/2m").is_err());
        assert!(eval("1.5*2").is_err());
        assert!(eval("(1").is_err());
        assert!(eval(&"(".repeat(100)).is_err());
        assert!(eval("9^99").is_err());
    }
}
