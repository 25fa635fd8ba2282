//! "Which supplier …" asks for a supplier. Where the request asks *which* of a column a
//! table call showed ("which supplier sells the most expensive product", `supplier` a
//! column of the file), the answer names a value of that column the tools printed — not
//! the product in the same row. A small model had the row `product = "Standing desk",
//! supplier = "Cobalt"` and answered with the product.
//!
//! **Invariant:** pure; silent unless the request's "which <noun>" is a column a table
//! call listed and the tools printed at least one value of it.

use crate::contracts::{ToolCallRecord, ToolCallStatus, ToolName};

/// What the answer lacks, when the request asks which value of a column and the answer
/// names none of the values the tools printed for it.
pub fn unnamed_column_value(
    request: &str,
    answer: &str,
    records: &[&ToolCallRecord],
) -> Option<String> {
    let outputs: Vec<&str> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok && r.tool.builtin() == Some(ToolName::ReadTable))
        .map(|r| r.output_head.as_str())
        .collect();
    let columns = crate::tools::columns_shown(&outputs.join("\n"));
    let column = asked_column(request, &columns)?;
    let values: Vec<String> = outputs
        .iter()
        .flat_map(|o| values_printed(o, &column))
        .collect();
    let first = values.first()?;
    let answer = answer.to_lowercase();
    if values.iter().any(|v| answer.contains(&v.to_lowercase())) {
        return None;
    }
    Some(format!(
        "the request asks which {column}, and the answer names no {column} the tools printed \
         (the row shows {column} = {first:?}): name the {column}"
    ))
}

/// The column the request asks for with "which <column>" (or its plural).
fn asked_column(request: &str, columns: &[String]) -> Option<String> {
    let words: Vec<String> = request
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words.windows(2).find_map(|w| {
        (w[0] == "which")
            .then(|| {
                columns
                    .iter()
                    .find(|c| w[1] == **c || w[1] == format!("{c}s") || w[1] == format!("{c}es"))
            })
            .flatten()
            .cloned()
    })
}

/// The values of `column` an output prints: `column = value` in a row, the groups of
/// `count by column` / `sum of … by column`, and `distinct values of column`.
fn values_printed(output: &str, column: &str) -> Vec<String> {
    let mut out = Vec::new();
    let key = format!("{column} = ");
    for line in output.lines() {
        let lower = line.to_lowercase();
        let list = if lower.contains(&format!("distinct values of {column}:")) {
            line.split_once(": ").map(|(_, list)| list)
        } else if lower.contains(&format!(" by {column} (")) {
            line.split_once("): ").map(|(_, list)| list)
        } else {
            None
        };
        if let Some(list) = list {
            for item in list.split(", ") {
                let name = item
                    .split(" = ")
                    .next()
                    .unwrap_or(item)
                    .split(" (")
                    .next()
                    .unwrap_or(item)
                    .trim()
                    .trim_matches('"');
                if !name.is_empty() && !name.starts_with('…') {
                    out.push(name.to_string());
                }
            }
            continue;
        }
        let mut rest = lower.as_str();
        let mut offset = 0;
        while let Some(at) = rest.find(&key) {
            let start = offset + at + key.len();
            let value: String = line[start..]
                .trim_start_matches('"')
                .split(['"', ','])
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            if !value.is_empty() {
                out.push(value);
            }
            offset = start;
            rest = &lower[start..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::shape::tests::ok;

    fn row() -> ToolCallRecord {
        ok(
            ToolName::ReadTable,
            "/h/shop/products.tsv",
            "products.tsv: CSV (delimiter tab, header row), 5 data rows, 4 columns: sku, \
             product, supplier, price\nmax of price = 899 (over 5 rows)\nthe row holding it \
             (row 3): sku = \"C-3\", product = \"Standing desk\", supplier = \"Cobalt\", price = 899.00",
        )
    }

    #[test]
    fn which_column_is_answered_by_a_value_of_that_column() {
        let asked = "Which supplier sells the most expensive product in ~/shop/products.tsv?";
        let why = unnamed_column_value(
            asked,
            "The most expensive product is 'Standing desk'.",
            &[&row()],
        )
        .expect("the product, not the supplier");
        assert!(why.contains("supplier = \"Cobalt\""), "{why}");
        assert_eq!(
            unnamed_column_value(asked, "Cobalt (899.00)", &[&row()]),
            None
        );
        // A request that asks which of no column, or a table that showed none: silent.
        let product = "Which product costs most?";
        assert!(unnamed_column_value(product, "Cobalt", &[&row()]).is_some());
        assert_eq!(
            unnamed_column_value(product, "Standing desk", &[&row()]),
            None
        );
        assert_eq!(
            unnamed_column_value("which shop is it", "x", &[&row()]),
            None
        );
    }

    #[test]
    fn group_and_distinct_lines_print_the_values_of_their_column() {
        let counts = ok(
            ToolName::ReadTable,
            "/h/t.jsonl",
            "t.jsonl: JSON Lines, 8 data rows, 3 columns: id, status, title\n\
             count by status (3 groups): open = 4, closed = 3, blocked = 1",
        );
        let asked = "Which status has the most tickets?";
        assert_eq!(unnamed_column_value(asked, "open (4)", &[&counts]), None);
        assert!(unnamed_column_value(asked, "4 tickets", &[&counts]).is_some());
        let distinct = ok(
            ToolName::ReadTable,
            "/h/t.jsonl",
            "t.jsonl: JSON Lines, 8 data rows, 3 columns: id, status, title\n\
             3 distinct values of status: open (4 rows), closed (3 rows), blocked (1 row)",
        );
        assert_eq!(
            values_printed(distinct.output_head.as_str(), "status"),
            ["open", "closed", "blocked"]
        );
    }
}
