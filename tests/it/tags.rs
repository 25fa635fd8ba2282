//! The one definition of "the same kind of task" (`tags::intent_slug`) measured on a
//! corpus of intents in English and Chinese, grouped by job
//! (`tests/fixtures/tags/paraphrases.toml`): paraphrases of one job must share a memory
//! group, different jobs must not.

use std::collections::BTreeMap;
use std::path::PathBuf;

use artoo::tags;

#[derive(serde::Deserialize)]
struct Corpus {
    group: Vec<Group>,
}

#[derive(serde::Deserialize)]
struct Group {
    job: String,
    intents: Vec<String>,
}

fn corpus() -> Corpus {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tags/paraphrases.toml");
    let text = std::fs::read_to_string(&path).expect("the corpus is readable");
    toml::from_str(&text).expect("the corpus parses")
}

fn has_chinese(s: &str) -> bool {
    s.chars().any(tags::kind::is_cjk)
}

#[test]
fn paraphrases_share_a_group_and_different_jobs_do_not() {
    let corpus = corpus();
    let intents: usize = corpus.group.iter().map(|g| g.intents.len()).sum();
    let chinese = corpus
        .group
        .iter()
        .flat_map(|g| &g.intents)
        .filter(|i| has_chinese(i))
        .count();
    assert!(intents >= 60, "{intents} intents");
    assert!(
        chinese >= 20 && intents - chinese >= 20,
        "{chinese} of {intents} in Chinese"
    );

    let slugs: Vec<Vec<String>> = corpus
        .group
        .iter()
        .map(|g| g.intents.iter().map(|i| tags::intent_slug(i)).collect())
        .collect();

    let (mut same, mut pairs) = (0usize, 0usize);
    let mut split = Vec::new();
    for (group, keys) in corpus.group.iter().zip(&slugs) {
        for a in 0..keys.len() {
            for b in a + 1..keys.len() {
                pairs += 1;
                if keys[a] == keys[b] {
                    same += 1;
                } else {
                    split.push(format!(
                        "{}: {:?} → {} / {:?} → {}",
                        group.job, group.intents[a], keys[a], group.intents[b], keys[b]
                    ));
                }
            }
        }
    }
    let (mut shared, mut cross) = (0usize, 0usize);
    let mut collisions: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for i in 0..slugs.len() {
        for j in i + 1..slugs.len() {
            for a in &slugs[i] {
                for b in &slugs[j] {
                    cross += 1;
                    if a == b {
                        shared += 1;
                        let jobs = collisions.entry(a.as_str()).or_default();
                        for job in [corpus.group[i].job.as_str(), corpus.group[j].job.as_str()] {
                            if !jobs.contains(&job) {
                                jobs.push(job);
                            }
                        }
                    }
                }
            }
        }
    }
    let together = same as f64 / pairs as f64;
    let apart = shared as f64 / cross as f64;
    println!(
        "{intents} intents ({chinese} Chinese) in {} jobs: {same}/{pairs} paraphrase pairs share a group ({:.1} %), {shared}/{cross} different-job pairs do ({:.2} %)",
        corpus.group.len(),
        together * 100.0,
        apart * 100.0
    );
    assert!(
        together >= 0.90,
        "only {:.1} % of paraphrase pairs share a group; split:\n{}",
        together * 100.0,
        split.join("\n")
    );
    assert!(
        apart <= 0.05,
        "{:.2} % of different-job pairs share a group: {collisions:?}",
        apart * 100.0
    );
}

#[test]
fn every_slug_of_the_corpus_is_its_own_slug_and_chinese_ones_keep_their_characters() {
    for intent in corpus().group.iter().flat_map(|g| &g.intents) {
        let slug = tags::intent_slug(intent);
        assert!(!slug.is_empty(), "{intent}");
        assert_eq!(tags::intent_slug(&slug), slug, "{intent}");
        if has_chinese(intent) {
            assert!(has_chinese(&slug), "{intent} → {slug}");
        }
    }
}
