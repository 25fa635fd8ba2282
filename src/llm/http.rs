//! The HTTP transport under async-openai: one `reqwest::Client` with the connect timeout,
//! and a tower service that turns every non-2xx answer into an [`HttpStatus`] error
//! carrying what the retry loop needs (status, Retry-After, body). It replaces
//! async-openai's built-in retry layer, so [`super::client`] is the only place that
//! retries.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use chrono::{DateTime, Utc};
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::text::clip;

/// Error bodies longer than this are cut (they end up in messages and logs).
const MAX_ERROR_BODY_CHARS: usize = 2_000;

/// A non-2xx answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("HTTP {status}: {body}")]
pub struct HttpStatus {
    pub status: u16,
    /// The server's Retry-After (or `retry-after-ms`), resolved against the clock.
    pub retry_after: Option<Duration>,
    pub body: String,
}

/// Parses `retry-after-ms`, then `Retry-After` as seconds or an HTTP date relative to
/// `now`.
pub fn retry_after(headers: &HeaderMap, now: DateTime<Utc>) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = text(RETRY_AFTER.as_str())?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

/// The tower service async-openai sends through.
#[derive(Clone)]
pub struct Transport {
    client: reqwest::Client,
    clock: crate::clock::SharedClock,
}

impl Transport {
    pub fn new(
        connect_timeout: Duration,
        clock: crate::clock::SharedClock,
    ) -> Result<Self, reqwest::Error> {
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .build()?;
        Ok(Self { client, clock })
    }

    /// The one `reqwest::Client` (and its TLS setup) every endpoint shares.
    pub fn http_client(&self) -> &reqwest::Client {
        &self.client
    }
}

type TransportFuture =
    Pin<Box<dyn Future<Output = Result<reqwest::Response, OpenAIError>> + Send + 'static>>;

impl tower::Service<HttpRequestFactory> for Transport {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = TransportFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequestFactory) -> Self::Future {
        let client = self.client.clone();
        let clock = self.clock.clone();
        Box::pin(async move {
            let request = request.build().await?;
            let response = client.execute(request).await?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let retry_after = retry_after(response.headers(), clock.now());
            let body = response.text().await.unwrap_or_default();
            Err(OpenAIError::Boxed(Box::new(HttpStatus {
                status: status.as_u16(),
                retry_after,
                body: clip(body.trim(), MAX_ERROR_BODY_CHARS),
            })))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_reads_seconds_milliseconds_and_http_dates() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Thu, 01 Jan 2026 00:00:05 GMT")]),
                now
            ),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Wed, 31 Dec 2025 23:00:00 GMT")]),
                now
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn long_error_bodies_are_cut_on_a_character_boundary() {
        let body = "错".repeat(3000);
        let cut = clip(&body, MAX_ERROR_BODY_CHARS);
        assert_eq!(cut.chars().count(), MAX_ERROR_BODY_CHARS + 1);
    }
}
