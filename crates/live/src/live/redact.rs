//! What of an HTTP endpoint a message may show: the URL without its userinfo and query values,
//! and no header value. A URL's query often carries a key (`?api_key=…`) and a header a token;
//! both would otherwise reach the agent (in a JSON-RPC error) or a CI log.

/// `url` as messages show it: no `user:password@`, each query value as `…`, no fragment.
pub fn shown_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (format!("{scheme}://"), rest),
        None => (String::new(), url),
    };
    let rest = rest.split('#').next().unwrap_or_default();
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let (path, query) = match tail.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (tail, None),
    };
    let mut shown = format!("{scheme}{host}{path}");
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=…"),
                None => pair.to_string(),
            })
            .collect();
        shown.push('?');
        shown.push_str(&pairs.join("&"));
    }
    shown
}

/// The secrets of an endpoint: its userinfo, its query values and its header values (each
/// whole, and a `Bearer TOKEN`'s token alone), longest first.
fn secrets(url: &str, headers: &[(String, String)]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if let Some((userinfo, _)) = authority.rsplit_once('@') {
        found.push(userinfo.to_string());
        found.extend(userinfo.split(':').map(str::to_string));
    }
    if let Some((_, query)) = rest.split('#').next().unwrap_or_default().split_once('?') {
        found.extend(
            query
                .split('&')
                .filter_map(|p| Some(p.split_once('=')?.1.to_string())),
        );
    }
    for (_, value) in headers {
        found.push(value.clone());
        found.extend(value.split_whitespace().skip(1).map(str::to_string));
    }
    // Too short to be a secret, and too likely to be any word.
    found.retain(|s| s.chars().count() >= 4);
    found.sort_by_key(|s| std::cmp::Reverse(s.len()));
    found.dedup();
    found
}

/// `text` with the endpoint shown as [`shown_url`] and every secret of it (see above) as `…`.
pub fn redact(text: &str, url: &str, headers: &[(String, String)]) -> String {
    let mut text = text.replace(url, &shown_url(url));
    for secret in secrets(url, headers) {
        text = text.replace(&secret, "…");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_userinfo_query_values_or_fragment() {
        assert_eq!(
            shown_url("https://me:pw@api.example.com:8443/mcp?api_key=SECRET&v=2#x"),
            "https://api.example.com:8443/mcp?api_key=…&v=…"
        );
        assert_eq!(
            shown_url("http://127.0.0.1:9/mcp"),
            "http://127.0.0.1:9/mcp"
        );
        assert_eq!(shown_url("http://h?flag"), "http://h?flag");
    }

    #[test]
    fn every_secret_of_the_endpoint_is_taken_out_of_a_message() {
        let url = "https://me:hunter22@h.example/mcp?api_key=SECRET123";
        let headers = [("Authorization".to_string(), "Bearer tok-abcdef".to_string())];
        let said = format!(
            "{url} answered HTTP 401: bad key SECRET123 for hunter22; got Bearer tok-abcdef, token tok-abcdef"
        );
        let shown = redact(&said, url, &headers);
        for secret in ["SECRET123", "hunter22", "tok-abcdef"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(
            shown.starts_with("https://h.example/mcp?api_key=… answered HTTP 401"),
            "{shown}"
        );
    }
}
