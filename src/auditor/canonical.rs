//! Canonical JSON and SHA-256 digests: the byte form the audit hash chain is computed over.
//!
//! Canonical JSON here is serde_json's compact form with every object's keys sorted by
//! byte order, recursively. For the ASCII keys the audit log uses this is the key order of
//! RFC 8785; strings and integers are written exactly as serde_json writes them.
//!
//! **Invariant:** the bytes hashed for an event are reproducible from the logged line alone
//! (parse → [`canonical_bytes`]), so anyone can verify the chain without a secret. Hashed
//! data never contains floating-point numbers, whose textual round trip is not exact.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `prev` of the first event ever logged.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Appends the canonical form of `value` to `out`.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            out.push(b'{');
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key.as_str())
                    .expect("writing a JSON string to memory cannot fail");
                out.push(b':');
                write_canonical(&map[key], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn write_scalar(value: &Value, out: &mut Vec<u8>) {
    serde_json::to_writer(out, value).expect("writing a JSON scalar to memory cannot fail");
}

/// The canonical form of `value`.
pub fn canonical_bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write_canonical(value, &mut out);
    out
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of the canonical JSON of any serialisable value (payload digests).
pub fn digest_of<T: serde::Serialize>(value: &T) -> String {
    let value = serde_json::to_value(value).expect("contract types serialise to JSON");
    sha256_hex(&canonical_bytes(&value))
}

/// SHA-256 of `value` as `serde_json::to_vec` writes it (compact, the value's own field
/// order), serialised straight into the hasher: no intermediate buffer per message.
pub fn sha256_of_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            sha2::Digest::update(&mut self.0, buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hashing = Hashing(Sha256::new());
    {
        use std::io::Write as _;
        let mut buffered = std::io::BufWriter::with_capacity(8 * 1024, &mut hashing);
        serde_json::to_writer(&mut buffered, value).expect("contract types serialise to JSON");
        buffered.flush().expect("hashing never fails");
    }
    hex(&hashing.0.finalize())
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_recursively_and_whitespace_is_dropped() {
        let v = json!({"b": 1, "a": {"z": [3, {"y": null, "x": "é\n"}], "c": true}});
        assert_eq!(
            String::from_utf8(canonical_bytes(&v)).unwrap(),
            r#"{"a":{"c":true,"z":[3,{"x":"é\n","y":null}]},"b":1}"#
        );
    }

    #[test]
    fn equal_values_in_different_key_orders_hash_the_same() {
        let a: Value = serde_json::from_str(r#"{"x": 1, "y": [1, 2]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{ "y":[1,2],"x":1 }"#).unwrap();
        assert_eq!(
            sha256_hex(&canonical_bytes(&a)),
            sha256_hex(&canonical_bytes(&b))
        );
    }

    #[test]
    fn sha256_matches_the_standard_test_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(GENESIS.len(), 64);
    }
}
