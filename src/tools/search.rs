//! `search`: web search. DuckDuckGo's HTML endpoint by default (`tools.search_url`;
//! tests point it at a local server). A timeout, a network failure or a CAPTCHA page is
//! an explicit "search unavailable — do not guess" error, never an empty success.

use std::borrow::Cow;
use std::sync::OnceLock;
use std::time::Duration;

use scraper::{Html, Selector};
use serde_json::{Value, json};

use super::{Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec};

/// Results returned to the model.
const MAX_RESULTS: usize = 5;
const USER_AGENT: &str = concat!(
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) artoo/",
    env!("CARGO_PKG_VERSION")
);

/// The search tool. Holds its HTTP clients (one through the system proxy, one direct
/// for loopback addresses).
#[derive(Debug, Default)]
pub struct Search {
    proxied: OnceLock<reqwest::Client>,
    direct: OnceLock<reqwest::Client>,
}

impl Search {
    /// The tool, with its HTTP clients built on first use.
    pub fn new() -> Self {
        Self::default()
    }

    fn client(&self, loopback: bool) -> Result<&reqwest::Client, ToolError> {
        let cell = if loopback {
            &self.direct
        } else {
            &self.proxied
        };
        if let Some(c) = cell.get() {
            return Ok(c);
        }
        let mut builder = reqwest::Client::builder().user_agent(USER_AGENT);
        if loopback {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| {
            ToolError::SearchUnavailable(format!("cannot start an HTTP client: {e}"))
        })?;
        Ok(cell.get_or_init(|| client))
    }
}

const PARAMS: &[Param] = &[Param {
    name: Cow::Borrowed("query"),
    kind: Cow::Borrowed("string"),
    required: true,
    about: Cow::Borrowed("what to search the web for"),
    choices: super::Choices::Open,
}];

/// One search hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub title: String,
    pub snippet: String,
    pub url: String,
}

fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// DuckDuckGo wraps result links as `//duckduckgo.com/l/?uddg=<encoded>&…`.
fn unwrap_link(href: &str) -> String {
    let absolute = if href.starts_with("//") {
        format!("https:{href}")
    } else {
        href.to_string()
    };
    if let Ok(url) = url::Url::parse(&absolute)
        && let Some((_, target)) = url.query_pairs().find(|(k, _)| k == "uddg")
    {
        return target.into_owned();
    }
    absolute
}

/// Parses DuckDuckGo's HTML results page (ads skipped).
pub fn parse_results(html: &str) -> Vec<Hit> {
    let doc = Html::parse_document(html);
    let (Ok(result), Ok(title), Ok(snippet), Ok(url)) = (
        Selector::parse("div.result, div.web-result"),
        Selector::parse("a.result__a"),
        Selector::parse(".result__snippet"),
        Selector::parse(".result__url"),
    ) else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for r in doc.select(&result) {
        let classes: Vec<&str> = r.value().classes().collect();
        if classes.iter().any(|c| c.contains("result--ad")) {
            continue;
        }
        let Some(a) = r.select(&title).next() else {
            continue;
        };
        let title_text = clean(&a.text().collect::<String>());
        let link = a
            .value()
            .attr("href")
            .map(unwrap_link)
            .or_else(|| {
                r.select(&url)
                    .next()
                    .map(|u| clean(&u.text().collect::<String>()))
            })
            .unwrap_or_default();
        if title_text.is_empty() || link.is_empty() {
            continue;
        }
        let snippet_text = r
            .select(&snippet)
            .next()
            .map(|s| clean(&s.text().collect::<String>()))
            .unwrap_or_default();
        hits.push(Hit {
            title: title_text,
            snippet: snippet_text,
            url: link,
        });
    }
    hits
}

/// DuckDuckGo answers bots with a CAPTCHA page instead of results.
fn is_challenge(html: &str) -> bool {
    html.contains("anomaly-modal")
        || html.contains("challenge-form")
        || html.contains("bots use DuckDuckGo")
}

impl Tool for Search {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Search.into(),
            priority: 8,
            summary: Cow::Borrowed(
                "Web search (DuckDuckGo). Returns the top results as title, snippet, URL.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let query = super::str_param(input, "query")?.trim();
        Ok(Prepared {
            tool: ToolName::Search.into(),
            input: json!({ "query": query }),
            target: query.to_string(),
            action: None,
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let query = super::str_param(&call.input, "query")?;
            let endpoint = &ctx.config.tools.search_url;
            let secs = ctx.config.tools.search_timeout_secs;
            let loopback = url::Url::parse(endpoint).ok().is_some_and(|u| {
                matches!(
                    u.host_str(),
                    Some("localhost" | "127.0.0.1" | "[::1]" | "::1")
                ) || u.host_str().is_some_and(|h| h.starts_with("127."))
            });
            let body: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("q", query)
                .append_pair("kl", "wt-wt")
                .finish();
            let request = self
                .client(loopback)?
                .post(endpoint)
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body)
                .timeout(Duration::from_secs(secs))
                .send();
            let response = request.await.map_err(|e| {
                if e.is_timeout() {
                    ToolError::SearchUnavailable(format!("no answer within {secs} s"))
                } else {
                    ToolError::SearchUnavailable(format!("network error: {e}"))
                }
            })?;
            let status = response.status();
            let html = tokio::time::timeout(Duration::from_secs(secs), response.text())
                .await
                .map_err(|_| ToolError::SearchUnavailable(format!("no answer within {secs} s")))?
                .map_err(|e| {
                    ToolError::SearchUnavailable(format!("reading the answer failed: {e}"))
                })?;
            if !status.is_success() {
                return Err(ToolError::SearchUnavailable(format!(
                    "the search engine answered {status}"
                )));
            }
            if is_challenge(&html) {
                return Err(ToolError::SearchUnavailable(
                    "the search engine asked for a CAPTCHA".into(),
                ));
            }
            let hits = parse_results(&html);
            if hits.is_empty() {
                return Ok(format!("No results found for: \"{query}\""));
            }
            Ok(hits
                .iter()
                .take(MAX_RESULTS)
                .map(|h| format!("{}\n{}\n{}", h.title, h.snippet, h.url))
                .collect::<Vec<_>>()
                .join("\n\n"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><body>
      <div class="result results_links results_links_deep result--ad">
        <a class="result__a" href="https://ads.example/x">Buy now</a>
      </div>
      <div class="result results_links results_links_deep web-result">
        <h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust-lang.org%2F&amp;rut=abc">Rust &amp; <b>Cargo</b></a></h2>
        <a class="result__url" href="x">www.rust-lang.org</a>
        <a class="result__snippet" href="x">A language empowering  everyone.</a>
      </div>
    </body></html>"#;

    #[test]
    fn results_are_parsed_with_ads_skipped_links_unwrapped_and_entities_decoded() {
        let hits = parse_results(PAGE);
        assert_eq!(
            hits,
            vec![Hit {
                title: "Rust & Cargo".into(),
                snippet: "A language empowering everyone.".into(),
                url: "https://www.rust-lang.org/".into(),
            }]
        );
    }
}
