//! Arithmetic the code computes, so a small model's answer quotes numbers it did not have
//! to work out: the expressions in the user's text, evaluated by a small parser.
//!
//! **Invariant:** a number shown to the model as "Computed by code" is the value of an
//! expression written in the input; anything the parser cannot evaluate exactly (a
//! division by zero, an unbalanced parenthesis, a non-finite value) is left out.

/// The arithmetic expressions in `text` with their values, as lines for the prompt.
pub fn computed_lines(text: &str) -> Vec<String> {
    let normalised: String = text
        .chars()
        .map(|c| match c {
            '×' | '✕' => '*',
            '÷' => '/',
            '－' | '−' => '-',
            '＋' => '+',
            '（' => '(',
            '）' => ')',
            c => c,
        })
        .collect();
    let mut out = Vec::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Vec<String>| {
        let expr = run
            .trim()
            .trim_end_matches(['+', '-', '*', '/', '^', '%'])
            .trim();
        let operators = expr
            .char_indices()
            .filter(|(i, c)| "+*/^%".contains(*c) || (*c == '-' && *i > 0))
            .count();
        let numbers = expr
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|n| !n.is_empty())
            .count();
        if operators >= 1
            && numbers >= 2
            && out.len() < 3
            && let Some(value) = arith::eval(expr)
        {
            out.push(format!("Computed by code: {expr} = {}", arith::show(value)));
        }
        run.clear();
    };
    for c in normalised.chars() {
        let part_of_expr =
            c.is_ascii_digit() || "+-*/^%().".contains(c) || (c == ' ' && !run.is_empty());
        if part_of_expr {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

mod arith {
    //! A small recursive-descent evaluator: + - * / % ^, unary minus, parentheses.

    pub fn eval(expr: &str) -> Option<f64> {
        let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
        let mut p = Parser {
            tokens,
            at: 0,
            depth: 0,
        };
        let v = p.sum()?;
        (p.at == p.tokens.len() && v.is_finite()).then_some(v)
    }

    /// An integer without a fraction; otherwise up to 6 decimals, trailing zeros cut.
    pub fn show(v: f64) -> String {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{}", v as i64)
        } else {
            let s = format!("{v:.6}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }

    struct Parser {
        tokens: Vec<char>,
        at: usize,
        depth: u32,
    }

    impl Parser {
        fn peek(&self) -> Option<char> {
            self.tokens.get(self.at).copied()
        }

        fn sum(&mut self) -> Option<f64> {
            let mut v = self.product()?;
            while let Some(op @ ('+' | '-')) = self.peek() {
                self.at += 1;
                let r = self.product()?;
                v = if op == '+' { v + r } else { v - r };
            }
            Some(v)
        }

        fn product(&mut self) -> Option<f64> {
            let mut v = self.power()?;
            while let Some(op @ ('*' | '/' | '%')) = self.peek() {
                self.at += 1;
                let r = self.power()?;
                v = match op {
                    '*' => v * r,
                    '/' if r != 0.0 => v / r,
                    '%' if r != 0.0 => v % r,
                    _ => return None,
                };
            }
            Some(v)
        }

        fn power(&mut self) -> Option<f64> {
            let base = self.unary()?;
            if self.peek() == Some('^') {
                self.at += 1;
                let exp = self.power()?;
                return Some(base.powf(exp));
            }
            Some(base)
        }

        fn unary(&mut self) -> Option<f64> {
            if self.peek() == Some('-') {
                self.at += 1;
                return Some(-self.unary()?);
            }
            self.atom()
        }

        fn atom(&mut self) -> Option<f64> {
            if self.peek() == Some('(') {
                self.depth += 1;
                if self.depth > 32 {
                    return None;
                }
                self.at += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return None;
                }
                self.at += 1;
                self.depth -= 1;
                return Some(v);
            }
            let start = self.at;
            while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
                self.at += 1;
            }
            let text: String = self.tokens[start..self.at].iter().collect();
            text.parse().ok()
        }
    }
}
