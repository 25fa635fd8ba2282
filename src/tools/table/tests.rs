//! Tests of the table engine: each asserts a behaviour that a plausible mistake would break.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::json;

use super::{Limits, NEEDS, OP_NAMES, Op, Request, cut, num, run_with_columns};

/// The answer alone.
fn run(path: &Path, req: &Request, limits: &Limits) -> Result<String, String> {
    run_with_columns(path, req, limits).0
}

/// A temporary folder holding one file.
struct Fixture {
    /// Keeps the folder alive.
    _dir: tempfile::TempDir,
    /// The file.
    path: PathBuf,
}

fn fixture(name: &str, content: &[u8]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    Fixture { _dir: dir, path }
}

fn ask_with(path: &Path, params: serde_json::Value, limits: &Limits) -> Result<String, String> {
    let req = Request::from_json(&params).unwrap();
    run(path, &req, limits)
}

fn ask(path: &Path, params: serde_json::Value) -> Result<String, String> {
    ask_with(path, params, &Limits::default())
}

/// The answer for `content` saved as `name`, which must succeed.
fn answer(name: &str, content: &str, params: serde_json::Value) -> String {
    let f = fixture(name, content.as_bytes());
    ask(&f.path, params).unwrap()
}

/// The error for `content` saved as `name`, which must fail.
fn failure(name: &str, content: &str, params: serde_json::Value) -> String {
    let f = fixture(name, content.as_bytes());
    ask(&f.path, params).unwrap_err()
}

const SALES: &str = "product,price,city\n\
\"Desk, oak\",450.00,Lyon\n\
Chair,120,Paris\n\
Lamp,\"1,200\",Paris\n\
Shelf,n/a,Nice\n\
Bed,,Paris\n";

#[test]
fn quoted_commas_do_not_shift_a_later_column() {
    // The wanted column is the 3rd; a naive split on ',' would read "oak" or 450 there.
    let out = answer(
        "sales.csv",
        SALES,
        json!({"op": "group_count", "by": "city"}),
    );
    assert!(
        out.contains("count by city (3 groups): Paris = 3, Lyon = 1, Nice = 1"),
        "{out}"
    );
    let out = answer("sales.csv", SALES, json!({"op": "sum", "column": "price"}));
    assert!(out.contains("sum of price = 1770 (over 3 rows)"), "{out}");
    assert!(
        out.contains("skipped 1 row whose price is not a number (row 4)"),
        "{out}"
    );
    assert!(out.contains("skipped 1 row with no price (row 5)"), "{out}");
}

#[test]
fn first_line_names_file_format_rows_and_columns() {
    let f = fixture("sales.csv", SALES.as_bytes());
    let out = ask(&f.path, json!({"op": "count"})).unwrap();
    let first = out.lines().next().unwrap();
    assert!(first.starts_with(&f.path.display().to_string()), "{first}");
    assert!(
        first.ends_with(
            "CSV (delimiter ',', header row), 5 data rows, 3 columns: product, price, city"
        ),
        "{first}"
    );
    assert_eq!(out.lines().nth(1), Some("count = 5 rows"));
}

#[test]
fn semicolon_file_with_decimal_commas() {
    let text = "nom;prix;ville\nA;12,5;Paris\nB;3,25;Lyon\nC;\"x;y\";Nice\n";
    let out = answer("fr.csv", text, json!({"op": "sum", "column": "prix"}));
    assert!(out.contains("delimiter ';'"), "{out}");
    assert!(out.contains("sum of prix = 15.75 (over 2 rows)"), "{out}");
    let out = answer("fr.csv", text, json!({"op": "count_by", "column": "ville"}));
    assert!(out.contains("count by ville (3 groups)"), "{out}");
}

#[test]
fn tab_file() {
    let text = "name\tscore\tnote\nAnn\t10\tgood, very\nBob\t30\tok\n";
    let out = answer("s.tsv", text, json!({"op": "mean", "column": "score"}));
    assert!(out.contains("delimiter tab"), "{out}");
    assert!(
        out.contains("mean of score = 20 (sum 40 / 2 rows)"),
        "{out}"
    );
    // A .txt with tabs is sniffed the same way.
    let out = answer("s.txt", text, json!({"op": "max", "column": "score"}));
    assert!(out.contains("max of score = 30 (over 2 rows)"), "{out}");
    // The value comes with the row that holds it: asked which one, the answer is there.
    let held = out
        .split("the row holding it (row 2): ")
        .nth(1)
        .unwrap_or_default();
    assert!(held.contains("Bob") && !held.contains("Ann"), "{out}");
    let tied = "name\tscore\nAnn\t30\nBob\t30\n";
    let out = answer("t.tsv", tied, json!({"op": "max", "column": "score"}));
    assert!(out.contains("2 rows hold it (max_row lists them)"), "{out}");
}

#[test]
fn a_month_asked_of_a_date_column_keeps_the_rows_dated_in_it() {
    let orders = "id,date,customer,total\n1,2026-02-27,Ana,20.00\n2,2026-03-02,Bo,15.50\n\
3,2026-03-15,Cy,8.00\n4,2025-03-20,Di,12.00\n5,2026-03-31,Ed,30.00\n6,2026-04-01,Fe,9.90\n";
    for month in ["March 2026", "2026-03", "2026年3月"] {
        let out = answer(
            "orders.csv",
            orders,
            json!({"op": "count", "where_column": "date", "equals": month}),
        );
        assert!(
            out.contains("(dates 2026-03-01 to 2026-03-31): 3 of 6 rows"),
            "{month}: {out}"
        );
    }
    let out = answer(
        "orders.csv",
        orders,
        json!({"op": "sum", "column": "total", "where_column": "date", "equals": "2025"}),
    );
    assert!(out.contains("sum of total = 12"), "{out}");
    // The request's month names the rows its question is about, with the date column.
    let f = fixture("orders.csv", orders.as_bytes());
    let facts = super::facts(
        &f.path,
        &json!({"op": "count"}),
        "Count the number of orders placed in March 2026",
    );
    assert_eq!(
        facts.named,
        Some(("date".to_string(), "march 2026".to_string()))
    );
    let none = super::facts(&f.path, &json!({"op": "count"}), "Count the orders");
    assert_eq!(none.named, None);
    // A value written in two words is named by the request's words in a row.
    let contacts = fixture(
        "contacts.csv",
        b"name,phone\nMario Keller,+49 30 5550 9876\nMaria Keller,+49 30 5550 1234\n",
    );
    let named = super::facts(
        &contacts.path,
        &json!({"op": "distinct", "column": "phone"}),
        "Find Maria Keller's phone number",
    );
    assert_eq!(
        named.named,
        Some(("name".to_string(), "Maria Keller".to_string()))
    );
    // A value that is no period still compares as text.
    let out = answer(
        "orders.csv",
        orders,
        json!({"op": "count", "where_column": "customer", "equals": "bo"}),
    );
    assert!(out.contains("1 of 6 rows"), "{out}");
}

#[test]
fn prose_with_a_comma_in_one_line_is_not_a_table() {
    let text = "apple pie, apple juice and apple jam\nbanana\npineapple tart\nan Apple a day\n";
    let out = failure(
        "fruit.txt",
        text,
        json!({"op": "sum", "column": "apple pie"}),
    );
    assert!(out.contains("plain text, not a table"), "{out}");
    // Rows that mostly share the delimiter are a table, a ragged row or two included.
    let text = "name,score\nAnn,10\nBob,30\nnote without a score\nCy,20\n";
    let out = answer("s.txt", text, json!({"op": "sum", "column": "score"}));
    assert!(out.contains("sum of score = 60"), "{out}");
}

#[test]
fn pipe_file() {
    let text = "a|b\n1|2\n3|4\n";
    let out = answer("p.txt", text, json!({"op": "sum", "column": "b"}));
    assert!(out.contains("delimiter '|'"), "{out}");
    assert!(out.contains("sum of b = 6"), "{out}");
}

#[test]
fn header_detected_or_columns_named_by_position() {
    let out = answer(
        "h.csv",
        "1,2,3\n4,5,6\n",
        json!({"op": "sum", "column": "col2"}),
    );
    assert!(out.contains("no header row"), "{out}");
    assert!(
        out.contains("2 data rows, 3 columns: col1, col2, col3"),
        "{out}"
    );
    assert!(out.contains("sum of col2 = 7 (over 2 rows)"), "{out}");

    let out = answer(
        "h.csv",
        "year,sales\n2021,5\n2022,7\n",
        json!({"op": "count"}),
    );
    assert!(out.contains("header row"), "{out}");
    assert!(out.contains("count = 2 rows"), "{out}");

    // A header alone is a header, with no data rows.
    let out = answer(
        "h.csv",
        "name,amount\n",
        json!({"op": "sum", "column": "amount"}),
    );
    assert!(
        out.contains("0 data rows, 2 columns: name, amount"),
        "{out}"
    );
    assert!(out.contains("sum of amount = 0 (over 0 rows)"), "{out}");
    let err = failure(
        "h.csv",
        "name,amount\n",
        json!({"op": "mean", "column": "amount"}),
    );
    assert!(err.contains("no data rows"), "{err}");
}

#[test]
fn mean_excludes_the_header() {
    let out = answer(
        "m.csv",
        "score\n10\n20\n30\n40\n",
        json!({"op": "average", "column": "score"}),
    );
    assert!(
        out.contains("mean of score = 25 (sum 100 / 4 rows)"),
        "{out}"
    );
}

#[test]
fn the_median_is_the_middle_value_in_order_not_the_middle_row_nor_the_mean() {
    let odd = answer(
        "items.csv",
        "item,price\npen,3\nbook,9\ntape,4\nbag,20\nglue,5\n",
        json!({"op": "median", "column": "price"}),
    );
    assert!(
        odd.ends_with("median of price = 5 (the middle of 5 rows in order: 3, 4, 5, 9, 20)"),
        "{odd}"
    );
    let even = answer(
        "t.csv",
        "n,v\na,10\nb,1\nc,4\nd,x\ne,7\n",
        json!({"op": "median", "column": "v"}),
    );
    assert!(
        even.contains("median of v = 5.5 (halfway between the two middle values 4 and 7 of 4 rows in order: 1, 4, 7, 10)"),
        "{even}"
    );
    assert!(
        even.contains("skipped 1 row whose v is not a number (row 4)"),
        "the row that holds no number is named: {even}"
    );
}

#[test]
fn group_counts_sorted_by_count_then_name() {
    let text = "city\nLyon\nParis\nnice\nParis\nLyon\nAmiens\nParis\n";
    let out = answer("g.csv", text, json!({"op": "group_by", "column": "city"}));
    assert!(
        out.contains("count by city (4 groups): Paris = 3, Lyon = 2, Amiens = 1, nice = 1"),
        "{out}"
    );
}

#[test]
fn group_sum_by_city() {
    let text = "city,amount\nParis,10\nLyon,5\nParis,2.5\nLyon,x\nNice,100\n";
    let out = answer(
        "g.csv",
        text,
        json!({"op": "group_sum", "by": "city", "column": "amount"}),
    );
    assert!(
        out.contains("sum of amount by city (3 groups): Nice = 100, Paris = 12.5, Lyon = 5"),
        "{out}"
    );
    assert!(
        out.contains("skipped 1 row whose amount is not a number (row 4)"),
        "{out}"
    );
    let err = failure(
        "g.csv",
        text,
        json!({"op": "group_sum", "column": "amount"}),
    );
    assert!(err.contains("needs by"), "{err}");
}

#[test]
fn max_row_returns_the_whole_item() {
    let out = answer("s.csv", SALES, json!({"op": "argmax", "column": "price"}));
    assert!(
        out.contains(
            "row with the highest price (row 3): product = \"Lamp\", price = 1,200, city = \"Paris\""
        ),
        "{out}"
    );
    let out = answer("s.csv", SALES, json!({"op": "smallest", "column": "price"}));
    assert!(
        out.contains("row with the lowest price (row 2): product = \"Chair\""),
        "{out}"
    );
}

#[test]
fn ties_list_every_row() {
    let text = "item,price\nA,5\nB,9\nC,9.00\nD,1\n";
    let out = answer("t.csv", text, json!({"op": "max_row", "column": "price"}));
    assert!(out.contains("2 rows share the highest price (9):"), "{out}");
    assert!(out.contains("row 2: item = \"B\", price = 9"), "{out}");
    assert!(out.contains("row 3: item = \"C\", price = 9.00"), "{out}");
    assert!(!out.contains("item = \"A\""), "{out}");
}

#[test]
fn unknown_column_error_names_the_real_columns() {
    let err = failure("s.csv", SALES, json!({"op": "sum", "column": "cost"}));
    assert!(err.contains("no column \"cost\""), "{err}");
    assert!(
        err.contains("the columns are: product, price, city"),
        "{err}"
    );
    let err = failure("s.csv", SALES, json!({"op": "sum", "column": "prcie"}));
    assert!(err.contains("did you mean price?"), "{err}");
}

#[test]
fn column_lookup_ignores_case_spaces_and_punctuation() {
    let text = "Unit Price,Customer_Name,qty\n3,Ann,2\n4,Bob,1\n";
    for name in [
        "unit price",
        "UNIT_PRICE",
        "unitprice",
        " Unit-Price ",
        "unit",
    ] {
        let out = answer("c.csv", text, json!({"op": "sum", "column": name}));
        assert!(out.contains("sum of Unit Price = 7"), "{name}: {out}");
    }
    let out = answer(
        "c.csv",
        text,
        json!({"op": "distinct", "column": "customer name"}),
    );
    assert!(
        out.contains("2 distinct values of Customer_Name: Ann (1 row), Bob (1 row)"),
        "{out}"
    );
    // A prefix that fits two columns is ambiguous, not a guess.
    let text = "price_eur,price_usd\n1,2\n";
    let err = failure("c.csv", text, json!({"op": "sum", "column": "price"}));
    assert!(
        err.contains("ambiguous") && err.contains("price_eur, price_usd"),
        "{err}"
    );
}

#[test]
fn json_nested_path_scalar() {
    let text = r#"{"database": {"host": "db.local", "port": 5432}, "debug": false}"#;
    for path in [
        "database.port",
        "$.database.port",
        "/database/port",
        "Database.Port",
    ] {
        let out = answer("c.json", text, json!({"op": "schema", "json_path": path}));
        assert!(out.ends_with("\ndatabase.port = 5432"), "{path}: {out}");
    }
    let out = answer(
        "c.json",
        text,
        json!({"op": "rows", "json_path": "database.host"}),
    );
    assert!(out.ends_with("database.host = \"db.local\""), "{out}");
    let err = failure(
        "c.json",
        text,
        json!({"op": "rows", "json_path": "database.user"}),
    );
    assert!(
        err.contains("has no key \"user\"; its keys are: host, port"),
        "{err}"
    );
}

#[test]
fn json_array_at_path_is_the_table() {
    let text = r#"{"meta": {"n": 3}, "data": {"users": [
        {"name": "Ann", "age": 31, "address": {"city": "Paris"}},
        {"name": "Bob", "age": 25, "address": {"city": "Lyon"}},
        {"name": "Cid", "age": 40, "address": {"city": "Paris"}}]}}"#;
    let out = answer(
        "u.json",
        text,
        json!({"op": "mean", "json_path": "data.users", "column": "age"}),
    );
    assert!(
        out.contains("JSON (array at data.users), 3 data rows"),
        "{out}"
    );
    assert!(out.contains("mean of age = 32 (sum 96 / 3 rows)"), "{out}");
    // Nested objects are flattened; "city" finds "address.city".
    let out = answer(
        "u.json",
        text,
        json!({"op": "count", "json_path": "data.users", "where_column": "city", "equals": "paris"}),
    );
    assert!(
        out.contains("where address.city = \"paris\": 2 of 3 rows"),
        "{out}"
    );
    assert!(out.contains("count = 2 rows"), "{out}");
    let out = answer(
        "u.json",
        text,
        json!({"op": "rows", "json_path": "data.users[1]"}),
    );
    assert!(out.contains("age: number 25"), "{out}");
    // The path's last step named a column: the error says how to ask.
    let err = failure(
        "u.json",
        text,
        json!({"op": "mean", "json_path": "data.users.age"}),
    );
    assert!(
        err.contains("give json_path \"data.users\" and column \"age\""),
        "{err}"
    );
}

#[test]
fn json_object_with_one_array_uses_it_and_says_so() {
    let text = r#"{"count": 2, "items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 5}]}"#;
    let out = answer("i.json", text, json!({"op": "sum", "column": "qty"}));
    assert!(out.contains("using the array items"), "{out}");
    assert!(out.contains("sum of qty = 7 (over 2 rows)"), "{out}");
    let out = answer(
        "i.json",
        "[{\"a\": 1}, {\"a\": 2.5}]",
        json!({"op": "sum", "column": "a"}),
    );
    assert!(out.contains("JSON (array top-level)"), "{out}");
    assert!(out.contains("sum of a = 3.5"), "{out}");
}

#[test]
fn json_object_without_table_shows_keys() {
    let text = r#"{"server": {"port": 80, "tls": {"on": true}}, "name": "x", "a": [{"k": 1}], "b": [{"k": 2}]}"#;
    let out = answer("o.json", text, json!({"op": "schema"}));
    assert!(
        out.contains("server: object with 2 keys: port (number 80), tls (object with 1 key)"),
        "{out}"
    );
    assert!(out.contains("a (1 item), b (1 item)"), "{out}");
    let err = failure("o.json", text, json!({"op": "count"}));
    assert!(err.contains("give json_path"), "{err}");
}

#[test]
fn jsonl_filter_count() {
    let text = "{\"city\": \"Paris\", \"n\": 1}\n{\"city\": \"Lyon\", \"n\": 2}\n\n{\"city\": \" paris \", \"n\": 3}\n{broken\n";
    let out = answer(
        "e.jsonl",
        text,
        json!({"op": "count", "where_column": "City", "equals": "PARIS"}),
    );
    assert!(out.contains("JSON Lines, 3 data rows"), "{out}");
    assert!(out.contains("where city = \"PARIS\": 2 of 3 rows"), "{out}");
    assert!(out.contains("count = 2 rows"), "{out}");
    assert!(out.contains("row 4 (line 5) could not be read"), "{out}");
    // Lines of objects without the extension are JSON Lines too.
    let out = answer("e.log", text, json!({"op": "sum", "column": "n"}));
    assert!(
        out.contains("JSON Lines") && out.contains("sum of n = 6"),
        "{out}"
    );
}

#[test]
fn filter_without_match_lists_values() {
    let err = failure(
        "s.csv",
        SALES,
        json!({"op": "sum", "column": "price", "where_column": "city", "equals": "Pariss"}),
    );
    assert!(err.contains("no row has city = \"Pariss\""), "{err}");
    assert!(err.contains("Paris (3)"), "{err}");
    // Numbers match as numbers.
    let out = answer(
        "n.csv",
        "id,v\n7,a\n7.0,b\n8,c\n",
        json!({"op": "count", "where_column": "id", "equals": "7"}),
    );
    assert!(out.contains("count = 2 rows"), "{out}");
    // `count` with column + equals filters on that column.
    let out = answer(
        "s.csv",
        SALES,
        json!({"op": "count", "column": "city", "equals": "lyon"}),
    );
    assert!(out.contains("count = 1 row"), "{out}");
}

#[test]
fn huge_file_is_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let file = std::fs::File::create(&path).unwrap();
    // Sparse: reading it whole would take gigabytes.
    file.set_len(8 * 1024 * 1024 * 1024).unwrap();
    let limits = Limits {
        max_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let err = ask_with(&path, json!({"op": "count"}), &limits).unwrap_err();
    assert!(
        err.contains("is 8.0 GB, over this tool's limit of 1.0 MB"),
        "{err}"
    );
}

#[test]
fn max_rows_cut_is_said() {
    let mut text = String::from("n\n");
    for i in 1..=100 {
        text.push_str(&format!("{i}\n"));
    }
    let f = fixture("r.csv", text.as_bytes());
    let limits = Limits {
        max_rows: 10,
        ..Limits::default()
    };
    let out = ask_with(&f.path, json!({"op": "sum", "column": "n"}), &limits).unwrap();
    assert!(
        out.contains("100 data rows (only the first 10 read)"),
        "{out}"
    );
    assert!(out.contains("covers only the first 10 rows"), "{out}");
    assert!(out.contains("sum of n = 55 (over 10 rows)"), "{out}");
    // A plain row count is exact: every row was counted while reading.
    let out = ask_with(&f.path, json!({"op": "count"}), &limits).unwrap();
    assert!(out.contains("\ncount = 100 rows"), "{out}");
    assert!(!out.contains("covers only"), "{out}");
    // JSON arrays and JSON Lines are cut the same way.
    let items: Vec<serde_json::Value> = (1..=30).map(|i| json!({"n": i})).collect();
    let f = fixture("r.json", serde_json::to_string(&items).unwrap().as_bytes());
    let out = ask_with(&f.path, json!({"op": "sum", "column": "n"}), &limits).unwrap();
    assert!(
        out.contains("30 data rows (only the first 10 read)"),
        "{out}"
    );
    assert!(out.contains("sum of n = 55 (over 10 rows)"), "{out}");
}

#[test]
fn broken_quoting_skips_the_row_and_goes_on() {
    let text = "id,name,amount\n1,ok,10\n2,\"broken,20\n3,fine,30\n4,good,40\n";
    let out = answer("b.csv", text, json!({"op": "sum", "column": "amount"}));
    assert!(out.contains("row 2 (line 3) could not be read"), "{out}");
    assert!(out.contains("3 rows read"), "{out}");
    assert!(out.contains("sum of amount = 80 (over 3 rows)"), "{out}");
    // A stray quote closed rows later must not swallow the rows in between.
    let text = "id,name,amount\n1,ok,10\n2,\"broken,20\n3,fine,30\n4,\"good,40\n5,x,50\n";
    let out = answer("b.csv", text, json!({"op": "rows"}));
    assert!(
        out.contains("row 3: id = 3, name = \"fine\", amount = 30"),
        "{out}"
    );
    assert!(out.contains("row 5: id = 5"), "{out}");
    // A broken quote in the header line hides neither the delimiter nor the rows.
    let text = "\"id,name,amount\nid,name,amount\n1,a,10\n2,b,20\n";
    let out = answer("b.csv", text, json!({"op": "sum", "column": "amount"}));
    assert!(out.contains("delimiter ','"), "{out}");
    assert!(out.contains("sum of amount = 30 (over 2 rows)"), "{out}");
    // A legitimate multi-line quoted field stays one cell.
    let text = "id,note\n1,\"two\nlines, ok\"\n2,x\n";
    let out = answer("b.csv", text, json!({"op": "rows"}));
    assert!(
        out.contains("row 1: id = 1, note = \"two\\nlines, ok\""),
        "{out}"
    );
    assert!(!out.contains("could not be read"), "{out}");
}

#[test]
fn invalid_utf8_is_decoded_lossily_and_said() {
    let f = fixture("u.csv", b"name,score\nAnn,10\nB\xffb,20\n");
    let out = ask(&f.path, json!({"op": "sum", "column": "score"})).unwrap();
    assert!(out.contains("not valid UTF-8"), "{out}");
    assert!(out.contains("sum of score = 30"), "{out}");
}

#[test]
fn the_lowest_of_a_text_column_points_to_the_row_of_the_lowest_number() {
    let f = fixture(
        "c.csv",
        b"city,country,jan_temp_c\nOslo,NO,-4.3\nRiga,LV,-7.2\nRome,IT,7.5\n",
    );
    let out = ask(&f.path, json!({"op": "min", "column": "city"})).unwrap_err();
    assert!(
        out.contains("to find which city has the lowest value of a number column, call min_row with that column (jan_temp_c): its row shows the city"),
        "{out}"
    );
    // A mean has no row to point to.
    let out = ask(&f.path, json!({"op": "mean", "column": "city"})).unwrap_err();
    assert!(
        !out.contains("min_row") && out.contains("for text use distinct"),
        "{out}"
    );
}

#[test]
fn bom_and_crlf_are_handled() {
    let f = fixture("b.csv", b"\xEF\xBB\xBFname,score\r\nAnn,10\r\nBob,20\r\n");
    let out = ask(&f.path, json!({"op": "mean", "column": "name"})).unwrap_err();
    assert!(out.contains("no value of name is a number"), "{out}");
    let out = ask(&f.path, json!({"op": "mean", "column": "score"})).unwrap();
    assert!(out.contains("2 columns: name, score"), "{out}");
    assert!(out.contains("mean of score = 15"), "{out}");
    // UTF-16 with its BOM, as spreadsheets export it.
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "a\tb\r\n1\t2\r\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let f = fixture("w.txt", &bytes);
    let out = ask(&f.path, json!({"op": "sum", "column": "b"})).unwrap();
    assert!(
        out.contains("UTF-16") && out.contains("sum of b = 2"),
        "{out}"
    );
}

#[test]
fn empty_file() {
    for content in ["", "\n\n", "\u{feff}"] {
        let out = answer("e.csv", content, json!({"op": "count"}));
        assert!(out.contains("empty file, 0 data rows, no columns"), "{out}");
        assert!(out.contains("count = 0 rows"), "{out}");
    }
    let err = failure("e.csv", "", json!({"op": "sum", "column": "x"}));
    assert!(err.contains("no columns"), "{err}");
    let out = answer("e.json", "[]", json!({"op": "count"}));
    assert!(out.contains("count = 0 rows"), "{out}");
}

#[test]
fn ragged_rows_get_empty_cells() {
    let out = answer("r.csv", "a,b,c\n1,2\n3,4,5,6\n", json!({"op": "rows"}));
    assert!(out.contains("4 columns: a, b, c, col4"), "{out}");
    assert!(
        out.contains("row 1: a = 1, b = 2, c = \"\", col4 = \"\""),
        "{out}"
    );
    assert!(
        out.contains("row 2: a = 3, b = 4, c = 5, col4 = 6"),
        "{out}"
    );
}

#[test]
fn number_parsing() {
    let p = |s: &str| num::parse(s, false);
    assert_eq!(p("1,234.50"), Some(1234.5));
    assert_eq!(p("$12"), Some(12.0));
    assert_eq!(p("-$12"), Some(-12.0));
    assert_eq!(p("12%"), Some(12.0));
    assert_eq!(p("-3"), Some(-3.0));
    assert_eq!(p(" 7 "), Some(7.0));
    assert_eq!(p("(40)"), Some(-40.0));
    assert_eq!(p("12 €"), Some(12.0));
    assert_eq!(p("1e3"), Some(1000.0));
    assert_eq!(p(".5"), Some(0.5));
    assert_eq!(p("1,234,567"), Some(1_234_567.0));
    for text in [
        "Desk, oak",
        "1, 2",
        "12,34",
        "1,2345",
        "inf",
        "NaN",
        "0x10",
        "",
        "-",
        "$",
        "1.2.3",
        "--1",
        "1e",
    ] {
        assert_eq!(p(text), None, "{text:?}");
    }
    assert_eq!(num::parse("12,5", true), Some(12.5));
    assert_eq!(num::parse("1.234,5", true), Some(1234.5));
    assert_eq!(num::parse("7", true), Some(7.0));
    // A sum over such cells, end to end.
    let out = answer(
        "n.csv",
        "item,cost\na,\"1,234.50\"\nb,$12\nc,12%\nd,-3\ne, 7 \nf,\"oak, big\"\n",
        json!({"op": "sum", "column": "cost"}),
    );
    assert!(out.contains("sum of cost = 1262.5 (over 5 rows)"), "{out}");
    assert!(
        out.contains("skipped 1 row whose cost is not a number (row 6)"),
        "{out}"
    );
}

#[test]
fn number_formatting_has_no_float_noise() {
    assert_eq!(num::format(12.299999999999), "12.3");
    assert_eq!(num::format(0.1 + 0.2), "0.3");
    assert_eq!(num::format(5.0), "5");
    assert_eq!(num::format(-0.0), "0");
    assert_eq!(num::format(1.0 / 3.0), "0.333333");
    assert_eq!(num::format(0.000123456789), "0.000123457");
    assert_eq!(num::format(-71.25), "-71.25");
    assert_eq!(num::format(1e15), "1000000000000000");
    let out = answer(
        "f.csv",
        "x\n0.1\n0.2\n",
        json!({"op": "sum", "column": "x"}),
    );
    assert!(out.contains("sum of x = 0.3 (over 2 rows)"), "{out}");
}

#[test]
fn dates_compare_for_min_and_max() {
    let text = "event,day\na,2024-03-01\nb,2023-12-31\nc,2024-11-05\n";
    let out = answer("d.csv", text, json!({"op": "max", "column": "day"}));
    assert!(
        out.contains("max of day = 2024-11-05 (over 3 rows)"),
        "{out}"
    );
    let out = answer("d.csv", text, json!({"op": "min_row", "column": "day"}));
    assert!(
        out.contains("row with the lowest day (row 2): event = \"b\""),
        "{out}"
    );
    let out = answer("d.csv", text, json!({"op": "schema"}));
    assert!(out.contains("day: date, e.g."), "{out}");
}

#[test]
fn schema_rows_and_distinct_shapes() {
    let out = answer("s.csv", SALES, json!({"op": "structure", "limit": 2}));
    assert!(
        out.contains("\ncolumns:\n  product: text, e.g. \"Desk, oak\", \"Chair\"\n"),
        "{out}"
    );
    assert!(
        out.contains("  price: number (1 cell is not a number), 1 row empty, e.g. 450.00, 120"),
        "{out}"
    );
    assert!(
        out.contains("first 2 rows:\n  row 1: product = \"Desk, oak\", price = 450.00"),
        "{out}"
    );
    assert!(!out.contains("row 3:"), "{out}");
    let out = answer("s.csv", SALES, json!({"op": "head", "limit": 1}));
    assert!(
        out.contains(
            "\nrow 1: product = \"Desk, oak\", price = 450.00, city = \"Lyon\"\n… 4 more rows"
        ),
        "{out}"
    );
    let out = answer(
        "s.csv",
        SALES,
        json!({"op": "unique", "column": "product", "limit": 2}),
    );
    assert!(
        out.contains(
            "5 distinct values of product: \"Desk, oak\" (1 row), Chair (1 row), … and 3 more values"
        ),
        "{out}"
    );
    // Each value with the rows that hold it: how many have one value is read, not counted.
    let out = answer("s.csv", SALES, json!({"op": "distinct", "column": "city"}));
    assert!(
        out.contains("3 distinct values of city: Lyon (1 row), Paris (3 rows), Nice (1 row)"),
        "{out}"
    );
    // And each value's share of the rows, computed here (no model divides).
    assert!(
        out.contains("\nshare of the 5 rows: Lyon 20%, Paris 60%, Nice 20%"),
        "{out}"
    );
    let out = answer("s.csv", SALES, json!({"op": "group_count", "by": "city"}));
    assert!(
        out.contains("\nshare of the 5 rows: Paris 60%, Lyon 20%, Nice 20%"),
        "{out}"
    );
}

#[test]
fn long_cells_are_cut_on_char_boundaries() {
    assert_eq!(cut("héllo wörld", 4), "hél…");
    assert_eq!(cut("日本語テキスト", 3), "日本…");
    assert_eq!(cut("abc", 3), "abc");
    assert_eq!(cut("😀😀😀😀", 1), "…");
    let f = fixture("l.csv", "k,v\na,ééééééééééé\n".as_bytes());
    let limits = Limits {
        max_cell_chars: 5,
        ..Limits::default()
    };
    let out = ask_with(&f.path, json!({"op": "rows"}), &limits).unwrap();
    assert!(out.contains("v = \"éééé…\""), "{out}");
}

#[test]
fn request_parsing_is_lenient() {
    let op = |name: &str| Request::from_json(&json!({"op": name})).map(|r| r.op);
    assert_eq!(op("AVERAGE"), Ok(Op::Mean));
    assert_eq!(op("avg"), Ok(Op::Mean));
    assert_eq!(op("total"), Ok(Op::Sum));
    assert_eq!(op("count_by"), Ok(Op::GroupCount));
    assert_eq!(op("group-by"), Ok(Op::GroupCount));
    assert_eq!(op("argmax"), Ok(Op::MaxRow));
    assert_eq!(op("Largest"), Ok(Op::MaxRow));
    assert_eq!(op("min_row"), Ok(Op::MinRow));
    assert_eq!(op("head"), Ok(Op::Rows));
    assert_eq!(op("keys"), Ok(Op::Schema));
    for o in Op::ALL {
        assert_eq!(op(o.name()), Ok(o));
    }
    let err = op("variance").unwrap_err();
    assert!(
        err.contains("unknown op \"variance\"") && err.contains("group_sum"),
        "{err}"
    );
    let req = Request::from_json(&json!({
        "op": "sum", "column": "price", "where": "city", "equals": 5, "limit": "3", "group_by": "x"
    }))
    .unwrap();
    assert_eq!(req.column.as_deref(), Some("price"));
    assert_eq!(req.where_column.as_deref(), Some("city"));
    assert_eq!(req.equals.as_deref(), Some("5"));
    assert_eq!(req.by.as_deref(), Some("x"));
    assert_eq!(req.limit, 3);
    assert!(Request::from_json(&json!({"column": "x"})).is_err());
    assert!(Request::from_json(&json!("sum")).is_err());
    assert!(Request::from_json(&json!({"op": "sum", "column": ["a"]})).is_err());
}

#[test]
fn the_grammar_tables_match_the_engine() {
    // The closed op names are the engine's canonical names, in its order.
    let names: Vec<&str> = Op::ALL.iter().map(|op| op.name()).collect();
    assert_eq!(names, OP_NAMES);
    // Every op is in exactly one group of NEEDS, and each group says the truth: without
    // what it needs the op is an error naming the columns; with it, an answer.
    for name in OP_NAMES {
        let groups: Vec<_> = NEEDS
            .iter()
            .filter(|(ops, _)| ops.contains(&name))
            .collect();
        assert_eq!(groups.len(), 1, "{name} is in one group");
        let needs = groups[0].1;
        let mut full = json!({ "op": name });
        for param in needs {
            full[*param] = json!(if *param == "by" { "city" } else { "price" });
        }
        let f = fixture("sales.csv", SALES.as_bytes());
        assert!(ask(&f.path, full.clone()).is_ok(), "{full}");
        for missing in needs {
            let mut lacking = full.clone();
            lacking.as_object_mut().unwrap().remove(*missing);
            // `distinct` and `group_count` read the other column parameter when theirs
            // is left out; without both they fail.
            lacking.as_object_mut().unwrap().remove("column");
            lacking.as_object_mut().unwrap().remove("by");
            let err = ask(&f.path, lacking.clone()).unwrap_err();
            assert!(err.contains("product, price, city"), "{lacking}: {err}");
        }
    }
}

#[test]
fn columns_are_what_a_table_call_reads() {
    let limits = Limits::default();
    let columns =
        |path: &Path, req: &Request, limits: &Limits| run_with_columns(path, req, limits).1;
    let csv = fixture("sales.csv", SALES.as_bytes());
    let req = Request::from_json(&json!({ "op": "schema" })).unwrap();
    assert_eq!(
        columns(&csv.path, &req, &limits),
        ["product", "price", "city"]
    );
    let nested = fixture(
        "db.json",
        br#"{"data": {"users": [{"name": "a", "age": 3}, {"name": "b", "age": 4}]}}"#,
    );
    let at = Request::from_json(&json!({ "op": "schema", "json_path": "data.users" })).unwrap();
    // An object's keys in the order the reader shows them (sorted).
    assert_eq!(columns(&nested.path, &at, &limits), ["age", "name"]);
    let lines = fixture(
        "log.jsonl",
        b"{\"level\": \"error\", \"n\": 1}\n{\"level\": \"info\", \"n\": 2}\n",
    );
    assert_eq!(columns(&lines.path, &req, &limits), ["level", "n"]);
    let text = fixture("note.txt", b"call the dentist\nbuy milk\n");
    assert!(columns(&text.path, &req, &limits).is_empty());
    let scalar = Request::from_json(&json!({ "op": "schema", "json_path": "data" })).unwrap();
    let config = fixture("c.json", br#"{"data": {"port": 5432}}"#);
    assert!(columns(&config.path, &scalar, &limits).is_empty());
    // A failed op has shown the columns too (its error names them).
    let mean = Request::from_json(&json!({ "op": "mean" })).unwrap();
    let (answer, seen) = run_with_columns(&csv.path, &mean, &limits);
    assert!(answer.is_err());
    assert_eq!(seen, ["product", "price", "city"]);
}

#[test]
fn a_json_array_is_not_taken_as_the_table_when_another_is_nested_beside_it() {
    let doc = r#"{"store": {"name": "Shop", "products": [{"sku": "a"}, {"sku": "b"}, {"sku": "c"}]},
                  "staff": [{"name": "Ines"}, {"name": "Tom"}]}"#;
    let f = fixture("catalog.json", doc.as_bytes());
    // Counting the whole file: no table is picked behind the user's back; the tables are
    // named, and the one asked for is read.
    let err = ask(&f.path, json!({ "op": "count" })).unwrap_err();
    assert!(
        err.contains("store.products (3 items)") && err.contains("staff (2 items)"),
        "{err}"
    );
    let out = ask(
        &f.path,
        json!({ "op": "count", "json_path": "store.products" }),
    )
    .unwrap();
    assert!(out.contains("count = 3 rows"), "{out}");
    // With one table in the whole file, it is still read on its own.
    let alone = fixture(
        "staff.json",
        br#"{"team": "x", "staff": [{"name": "Ines"}, {"name": "Tom"}]}"#,
    );
    let out = ask(&alone.path, json!({ "op": "count" })).unwrap();
    assert!(out.contains("count = 2 rows"), "{out}");
}

#[test]
fn params_describe_every_request_field() {
    let names: Vec<&str> = super::PARAMS.iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        [
            "op",
            "column",
            "by",
            "where_column",
            "equals",
            "below",
            "above",
            "at_most",
            "at_least",
            "json_path",
            "limit"
        ]
    );
    assert!(super::PARAMS.iter().filter(|p| p.2).map(|p| p.0).eq(["op"]));
    assert!(!super::SUMMARY.contains('\n'));
}

#[test]
fn a_missing_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = ask(&dir.path().join("none.csv"), json!({"op": "count"})).unwrap_err();
    assert!(err.contains("no such file"), "{err}");
}

/// `~/shop/stock.csv`-like rows: three below 5, one at 5, one cell no number.
const STOCK: &str = "item,qty\nsoap,12\nrice,1\ntea,0\nmilk,2\nsalt,9\noil,5\nflour,n/a\n";

#[test]
fn bounds_keep_the_rows_whose_value_is_below_or_above_a_number() {
    let count = |params: serde_json::Value| counted(&answer("s.csv", STOCK, params));
    let bound = |key: &str, v: &str| {
        let mut call = json!({"op": "count", "where_column": "qty"});
        call[key] = json!(v);
        count(call)
    };
    // Strict and not: the row at exactly 5 tells them apart.
    assert_eq!(bound("below", "5"), 3.0);
    assert_eq!(bound("at_most", "5"), 4.0);
    assert_eq!(bound("above", "5"), 2.0);
    assert_eq!(bound("at_least", "5"), 3.0);
    // Two bounds make a range; a number given as a JSON number reads the same.
    assert_eq!(
        count(json!({"op": "count", "where_column": "qty", "above": 0, "below": 10})),
        4.0
    );
    // The line says which rows were kept, and that the cell with no number was not.
    let out = answer(
        "s.csv",
        STOCK,
        json!({"op": "count", "where_column": "qty", "below": "5"}),
    );
    assert!(out.contains("where qty < 5: 3 of 7 rows"), "{out}");
    assert!(out.contains("1 row left out"), "{out}");
    // The op's own column is bounded when no where_column is given; a sum runs over
    // the kept rows only.
    let out = answer(
        "s.csv",
        STOCK,
        json!({"op": "sum", "column": "qty", "at_least": "5"}),
    );
    assert_eq!(number_after(&out, "sum of qty ="), 26.0, "{out}");
}

#[test]
fn a_bound_that_is_no_number_or_keeps_no_row_says_so() {
    let err = failure(
        "s.csv",
        STOCK,
        json!({"op": "count", "where_column": "qty", "below": "few"}),
    );
    assert!(err.contains("neither a number nor a date"), "{err}");
    let err = failure("s.csv", STOCK, json!({"op": "count", "below": "5"}));
    assert!(
        err.contains("need where_column") && err.contains("qty"),
        "{err}"
    );
    let err = failure(
        "s.csv",
        STOCK,
        json!({"op": "max_row", "column": "qty", "below": "0"}),
    );
    assert!(err.contains("no row keeps within"), "{err}");
    let out = answer(
        "s.csv",
        STOCK,
        json!({"op": "count", "where_column": "qty", "below": "0"}),
    );
    assert_eq!(counted(&out), 0.0, "{out}");
}

#[test]
fn bounds_on_a_column_of_dates_compare_by_the_calendar() {
    let orders = "id,day\n1,2026-02-27\n2,2026-03-01\n3,2026-03-15\n4,2026-04-02\n";
    let out = answer(
        "o.csv",
        orders,
        json!({"op": "count", "where_column": "day", "at_least": "2026-03-01", "below": "2026-04-01"}),
    );
    assert_eq!(counted(&out), 2.0, "{out}");
}

/// A folder with `entries` (relative path, bytes, days since last change).
fn folder(entries: &[(&str, usize, u64)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, size, days) in entries {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, vec![b'x'; *size]).unwrap();
        let at = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400 + 60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at)
            .unwrap();
        // A folder made for the entry is as old as it.
        if path.parent() != Some(dir.path()) {
            let parent = std::fs::File::open(path.parent().unwrap()).unwrap();
            parent.set_modified(at).unwrap();
        }
    }
    dir
}

#[test]
fn a_folder_reads_as_the_table_of_its_entries() {
    let dir = folder(&[
        ("beach.jpg", 300, 2),
        ("cake.JPG", 200, 3),
        ("dog.png", 900, 20),
        ("notes.txt", 10, 1),
        (".hidden.jpg", 5, 1),
        ("alpha/a.txt", 10, 40),
        ("alpha/b.txt", 10, 40),
        ("beta/model.bin", 5000, 40),
    ]);
    let out = ask(dir.path(), json!({"op": "count"})).unwrap();
    // Four files and two folders; the hidden file is left out, and said to be.
    assert!(out.contains("count = 6 rows"), "{out}");
    assert!(out.contains("1 hidden entry"), "{out}");
    // Changed in the last week: by days_old, the folders' own dates aside.
    let out = ask(
        dir.path(),
        json!({"op": "count", "where_column": "days_old", "below": "7"}),
    )
    .unwrap();
    assert!(out.contains("3 of 6 rows"), "{out}");
    // The folder that takes the most space: the bytes beneath it, not its file count.
    let out = ask(
        dir.path(),
        json!({"op": "max_row", "column": "size_bytes", "where_column": "type", "equals": "folder"}),
    )
    .unwrap();
    assert!(out.contains("beta") && !out.contains("alpha"), "{out}");
    // Counts per extension, case folded.
    let out = ask(dir.path(), json!({"op": "group_count", "by": "extension"})).unwrap();
    assert!(out.contains("jpg = 2"), "{out}");
}

/// The number of rows on the answer's `count = N rows` line.
fn counted(out: &str) -> f64 {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("count = "))
        .unwrap_or_else(|| panic!("no count in {out}"));
    line.split_whitespace().next().unwrap().parse().unwrap()
}

/// The number after ` = ` on the answer line that starts with `prefix`.
fn number_after(out: &str, prefix: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in {out}"));
    let rest = &line[prefix.len()..];
    let end = rest.find(" (").unwrap_or(rest.len());
    rest[..end].trim().parse().unwrap()
}

/// A cell of `v` written one of several ways a spreadsheet might.
fn write_cell(v: i64, style: u8) -> String {
    match style % 4 {
        0 => v.to_string(),
        1 => format!("\"{v}\""),
        2 => format!(" {v} "),
        _ => {
            // Thousands separators, quoted because they contain the delimiter.
            let digits = v.unsigned_abs().to_string();
            let mut grouped = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            let sign = if v < 0 { "-" } else { "" };
            format!("\"{sign}{grouped}\"")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn integer_tables_give_exact_aggregates(
        width in 1usize..5,
        table in prop::collection::vec(prop::collection::vec((-20_000i64..20_000, 0u8..4), 4), 1..16),
        pick in 0usize..4,
        quote_header in any::<bool>(),
    ) {
        let col = pick % width;
        let mut text = String::new();
        let header: Vec<String> = (0..width)
            .map(|i| if quote_header { format!("\"c{i}\"") } else { format!("c{i}") })
            .collect();
        text.push_str(&header.join(","));
        text.push('\n');
        for row in &table {
            let cells: Vec<String> = row[..width].iter().map(|&(v, s)| write_cell(v, s)).collect();
            text.push_str(&cells.join(","));
            text.push('\n');
        }
        let values: Vec<i64> = table.iter().map(|r| r[col].0).collect();
        let f = fixture("p.csv", text.as_bytes());
        let name = format!("c{col}");
        let get = |op: &str| ask(&f.path, json!({"op": op, "column": name})).unwrap();

        let sum: i64 = values.iter().sum();
        prop_assert_eq!(number_after(&get("sum"), &format!("sum of {name} = ")), sum as f64);
        let mean = sum as f64 / values.len() as f64;
        let got = number_after(&get("mean"), &format!("mean of {name} = "));
        prop_assert!((got - mean).abs() <= 1e-6 * mean.abs().max(1.0), "mean {} vs {}", got, mean);
        let min = *values.iter().min().unwrap();
        let max = *values.iter().max().unwrap();
        prop_assert_eq!(number_after(&get("min"), &format!("min of {name} = ")), min as f64);
        prop_assert_eq!(number_after(&get("max"), &format!("max of {name} = ")), max as f64);
        let count = ask(&f.path, json!({"op": "count"})).unwrap();
        let expected_count = format!("\ncount = {} row", values.len());
        prop_assert!(count.contains(&expected_count), "{}", count);
        let ties = values.iter().filter(|&&v| v == max).count();
        let max_row = get("max_row");
        if ties == 1 {
            prop_assert!(max_row.contains("row with the highest"), "{}", max_row);
        } else {
            let expected_ties = format!("{ties} rows share the highest");
            prop_assert!(max_row.contains(&expected_ties), "{}", max_row);
        }
    }

    #[test]
    fn run_never_panics_on_arbitrary_bytes(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..600),
            "[a-c0-9,;\t|\"\\n\\r{}\\[\\]:. $%-]{0,300}".prop_map(String::into_bytes),
            "(\\{\"[ab]\": ?(1|\"x\"|\\[\\]|\\{\\}|null)\\}\n?){0,8}".prop_map(String::into_bytes),
        ],
        ext in prop::sample::select(vec!["csv", "tsv", "json", "jsonl", "txt", "dat"]),
        op in prop::sample::select(Op::ALL.to_vec()),
        column in prop::option::of(prop::sample::select(vec!["a", "col1", "b", "x", "A "])),
        by in prop::option::of(prop::sample::select(vec!["a", "col2", "b"])),
        filter in prop::option::of(("[ab]|col1", "[0-9a-c]{0,2}")),
        below in prop::option::of("-?[0-9]{1,2}|2026-0[1-3]-1[0-9]|x"),
        at_least in prop::option::of("[0-9]{1,2}"),
        json_path in prop::option::of(prop::sample::select(vec!["a", "0", "$.a[0]", "a.b", "/"])),
        limit in 0usize..4,
        max_rows in 1usize..6,
        max_cell_chars in 0usize..4,
    ) {
        let f = fixture(&format!("f.{ext}"), &bytes);
        let req = Request {
            op,
            column: column.map(str::to_owned),
            by: by.map(str::to_owned),
            where_column: filter.as_ref().map(|(w, _)| w.clone()),
            equals: filter.map(|(_, e)| e),
            bounds: super::Bounds { below, at_least, ..super::Bounds::default() },
            json_path: json_path.map(str::to_owned),
            limit,
        };
        let limits = Limits { max_bytes: 500, max_rows, max_shown_rows: 3, max_cell_chars };
        match run(&f.path, &req, &limits) {
            Ok(out) => {
                let first = out.lines().next().unwrap_or("");
                prop_assert!(first.starts_with(&f.path.display().to_string()), "{}", out);
            }
            Err(e) => prop_assert!(!e.is_empty()),
        }
    }
}

#[test]
fn a_file_of_one_number_per_line_is_one_column_named_value() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("readings.txt");
    std::fs::write(&list, "12.5\n-3\n7\n\n104.25\n99\n0.5\n").unwrap();
    let max = ask(&list, serde_json::json!({"op": "max", "column": "value"})).unwrap();
    assert!(max.contains("104.25"), "{max}");
    assert!(max.contains("one number per line"), "{max}");
    let sum = ask(&list, serde_json::json!({"op": "sum", "column": "value"})).unwrap();
    assert!(sum.contains("220.25"), "{sum}");
    // The list has no header to name its column: any name a call gives it is that
    // column (a call summed the "amount" of a list of amounts).
    let named = ask(&list, serde_json::json!({"op": "sum", "column": "amount"})).unwrap();
    assert!(named.contains("220.25"), "{named}");
    // A table with a header row still holds a call to its names where more than one
    // column of numbers could be meant.
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "minutes,seconds\n3,10\n4,20\n").unwrap();
    let err = ask(&csv, serde_json::json!({"op": "sum", "column": "amount"})).unwrap_err();
    assert!(err.contains("no column \"amount\""), "{err}");
    // One number alone, or numbers among words, is no list.
    std::fs::write(&list, "42\n").unwrap();
    assert!(ask(&list, serde_json::json!({"op": "count"})).is_err());
    std::fs::write(&list, "12\nbuy milk\n7\n").unwrap();
    assert!(ask(&list, serde_json::json!({"op": "count"})).is_err());
}

#[test]
fn plain_text_is_not_read_as_a_table_and_a_folder_names_its_tables_among_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let note = dir.path().join("monday.txt");
    std::fs::write(
        &note,
        "meeting at 10\nbuy milk\ncall bob\nreview PR\nTODO: fix bug\n",
    )
    .unwrap();
    let req = Request::from_json(&serde_json::json!({"op": "count"})).unwrap();
    let err = run(&note, &req, &Limits::default()).unwrap_err();
    assert!(
        err.contains("plain text, not a table") && err.contains("read_file"),
        "{err}"
    );
    std::fs::write(dir.path().join("expenses.csv"), "name,amount\napples,3\n").unwrap();
    let out = run(dir.path(), &req, &Limits::default()).unwrap();
    assert!(out.contains("the tables in it: expenses.csv"), "{out}");
    // A one-column file with a table's extension is still a table.
    let list = dir.path().join("names.csv");
    std::fs::write(&list, "name\nana\nbob\n").unwrap();
    assert!(
        run(&list, &req, &Limits::default())
            .unwrap()
            .contains("count = 2 rows")
    );
}

#[test]
fn the_one_value_the_words_name_is_found_with_its_column() {
    let f = fixture("s.csv", SALES.as_bytes());
    let call = json!({"op": "sum", "column": "price"});
    assert_eq!(
        super::facts(&f.path, &call, "the total price of the Lyon sales").named,
        Some(("city".to_string(), "Lyon".to_string()))
    );
    // Case and a path do not matter; a column's name is no value.
    assert_eq!(
        super::facts(&f.path, &call, "chair price in ~/shop/s.csv, by city").named,
        Some(("product".to_string(), "Chair".to_string()))
    );
    // No value named, or two: no rows can be chosen.
    assert_eq!(super::facts(&f.path, &call, "the total price").named, None);
    assert_eq!(
        super::facts(&f.path, &call, "Lyon or Paris, whichever sold more").named,
        None
    );
    assert_eq!(
        super::facts(&f.path, &call, "").columns,
        ["product", "price", "city"]
    );
}

#[test]
fn a_row_filter_given_no_value_keeps_every_row_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let orders = dir.path().join("orders.csv");
    std::fs::write(
        &orders,
        "id,amount,paid_with\n1,12.00,card\n2,8.50,cash\n3,30.00,card\n4,5.25,cash\n",
    )
    .unwrap();
    let out = ask(
        &orders,
        serde_json::json!({"op": "distinct", "column": "paid_with", "where_column": "paid_with"}),
    )
    .unwrap();
    assert!(
        out.contains(
            "where_column \"paid_with\" was given no value to keep (equals), so every row counts"
        ),
        "{out}"
    );
    assert!(
        out.contains("card (2 rows)") && out.contains("cash (2 rows)"),
        "{out}"
    );
    // A value without its column is still an error: which column holds it is a guess.
    let err = ask(
        &orders,
        serde_json::json!({"op": "sum", "column": "amount", "equals": "card"}),
    )
    .unwrap_err();
    assert!(err.contains("needs where_column"), "{err}");
}

#[test]
fn an_op_that_cannot_work_on_its_column_still_answers_with_what_the_filter_kept() {
    let orders = "id,amount,paid_with\n1,12.00,card\n2,8.50,cash\n3,30.00,card\n";
    let out = answer(
        "o.csv",
        orders,
        json!({"op": "sum", "column": "paid_with", "where_column": "paid_with", "equals": "card"}),
    );
    assert!(
        out.contains("where paid_with = \"card\": 2 of 3 rows (66.7%)"),
        "{out}"
    );
    assert!(
        out.contains("not computed") && out.contains("no value of paid_with is a number"),
        "{out}"
    );
    assert!(!out.contains("sum of paid_with ="), "{out}");
    // Without a filter there is nothing kept to say: the call fails.
    let err = failure("o.csv", orders, json!({"op": "sum", "column": "paid_with"}));
    assert!(err.contains("no value of paid_with is a number"), "{err}");
    assert!(!err.contains("not computed"), "{err}");
}

#[test]
fn with_a_filter_by_value_the_bounds_hold_the_ops_column() {
    let files = "name,extension,size_bytes\napp.log,log,3000\ndb.log,log,500\ndump.dat,dat,5000\n";
    let f = fixture("f.csv", files.as_bytes());
    let out = ask(
        &f.path,
        json!({"op": "count", "column": "size_bytes", "where_column": "extension",
               "equals": "log", "at_least": "1000"}),
    )
    .unwrap();
    assert!(
        out.contains("where extension = \"log\": 2 of 3 rows"),
        "{out}"
    );
    assert!(out.contains("size_bytes >= 1000: 1 of 2 rows"), "{out}");
    // A half filter still takes the bounds on its own column.
    let out = ask(
        &f.path,
        json!({"op": "count", "where_column": "size_bytes", "at_least": "1000"}),
    )
    .unwrap();
    assert!(out.contains("size_bytes >= 1000: 2 of 3 rows"), "{out}");
}

#[test]
fn a_sum_over_a_column_the_table_lacks_runs_on_its_one_column_of_numbers() {
    let spending = "month,category,amount\n2026-01,food,70\n2026-02,fuel,80\n2026-02,gifts,60\n";
    let out = answer(
        "s.csv",
        spending,
        json!({"op": "group_sum", "by": "month", "column": "total"}),
    );
    assert!(
        out.contains("no column \"total\"; amount is the one column of numbers"),
        "{out}"
    );
    assert!(out.contains("2026-02 = 140"), "{out}");
    // A sum over the column of text: the numbers' sum for each of its values.
    let out = answer("s.csv", spending, json!({"op": "sum", "column": "month"}));
    assert!(out.contains("2026-02 = 140"), "{out}");
    assert!(
        out.contains("month holds no numbers, so the sum is of amount, for each month"),
        "{out}"
    );
    // Two columns of numbers: which one is meant is a guess, and the call fails.
    let orders = "id,amount,paid_with\n1,12.00,card\n2,8.50,cash\n";
    let err = failure("o.csv", orders, json!({"op": "sum", "column": "total"}));
    assert!(err.contains("no column \"total\""), "{err}");
    // An op that needs no numbers is not mended.
    let err = failure(
        "s.csv",
        spending,
        json!({"op": "distinct", "column": "total"}),
    );
    assert!(err.contains("no column \"total\""), "{err}");
}

#[test]
fn text_in_columns_separated_by_spaces_is_a_table_its_columns_named_by_place() {
    let log = "10.0.0.5 GET /index.html 200\n10.0.0.7 GET /about.html 200\n\
               10.0.0.5 GET /logo.png 304\n172.16.0.9 GET /contact.html 404\n";
    let out = answer(
        "access.log",
        log,
        json!({"op": "distinct", "column": "field1"}),
    );
    assert!(out.contains("3 distinct values of field1"), "{out}");
    assert!(out.contains("field1 (e.g. 10.0.0.5)"), "{out}");
    // A column it lacks: the error shows what each column holds.
    let err = failure("access.log", log, json!({"op": "distinct", "column": "ip"}));
    assert!(
        err.contains("field1 (e.g. 10.0.0.5), field2 (e.g. GET)"),
        "{err}"
    );
    // A header shown by a column of numbers under a word.
    let sizes = "name size\nnotes.txt 120\nlog.txt 4096\n";
    let out = answer("sizes.txt", sizes, json!({"op": "sum", "column": "size"}));
    assert!(out.contains("sum of size = 4216 (over 2 rows)"), "{out}");
    // Prose, whose lines differ in length, stays plain text; so does one line.
    let err = failure(
        "note.txt",
        "Call Ann today\nBuy milk\n",
        json!({"op": "count"}),
    );
    assert!(err.contains("plain text, not a table"), "{err}");
    let err = failure("one.txt", "a b c\n", json!({"op": "count"}));
    assert!(err.contains("plain text, not a table"), "{err}");
}
