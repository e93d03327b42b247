//! The computed noProxy list.

use manifests::inputs::{ManifestInputs, Proxy};
use manifests::proxy::computed_no_proxy;

use crate::common;

fn with_proxy(http: Option<&str>, https: Option<&str>, no_proxy: Option<&str>) -> ManifestInputs {
    let mut i = common::sno();
    i.proxy = Some(Proxy {
        http_proxy: http.map(String::from),
        https_proxy: https.map(String::from),
        no_proxy: no_proxy.map(String::from),
    });
    i
}

#[test]
fn nothing_without_an_http_or_https_proxy() {
    assert_eq!(computed_no_proxy(&common::sno()), None);
    assert_eq!(
        computed_no_proxy(&with_proxy(None, None, Some(".corp"))),
        None
    );
    assert_eq!(computed_no_proxy(&with_proxy(Some(""), None, None)), None);
}

#[test]
fn defaults_networks_and_api_int_sorted() {
    let got = computed_no_proxy(&with_proxy(Some("http://p:3128"), None, None)).unwrap();
    assert_eq!(
        got,
        ".cluster.local,.svc,10.128.0.0/14,127.0.0.1,172.30.0.0/16,192.168.111.0/24,\
         api-int.sno.example.com,localhost"
    );
}

#[test]
fn user_entries_are_trimmed_and_deduplicated() {
    let got = computed_no_proxy(&with_proxy(
        None,
        Some("http://p:3128"),
        Some(" .corp ,localhost,,10.0.0.0/8"),
    ))
    .unwrap();
    let items: Vec<&str> = got.split(',').collect();
    assert!(items.contains(&".corp") && items.contains(&"10.0.0.0/8"));
    assert_eq!(items.iter().filter(|s| **s == "localhost").count(), 1);
    let mut sorted = items.clone();
    sorted.sort();
    assert_eq!(items, sorted);
}

#[test]
fn star_means_everything() {
    let got = computed_no_proxy(&with_proxy(Some("http://p:3128"), None, Some("*"))).unwrap();
    assert_eq!(got, "*");
    // `*` inside a list is just an entry.
    let got = computed_no_proxy(&with_proxy(Some("http://p:3128"), None, Some("*,.corp"))).unwrap();
    assert!(got.contains("*,") || got.starts_with('*'));
    assert!(got.contains(".corp"));
}

#[test]
fn dual_stack_networks_are_included() {
    let mut i = common::vsphere_ha_dual_stack();
    i.proxy = Some(Proxy {
        http_proxy: Some("http://p:3128".into()),
        ..Proxy::default()
    });
    let got = computed_no_proxy(&i).unwrap();
    for net in [
        "fd01::/48",
        "fd02::/112",
        "fd2e:6f44:5dd8:c956::/120",
        "api-int.vs.example.com",
    ] {
        assert!(got.split(',').any(|s| s == net), "{net} missing from {got}");
    }
}
