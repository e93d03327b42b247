//! Size report against platform user-data limits.

use ignition::{platform_limit, size_report};

#[test]
fn aws_user_data_limit_is_reported_when_exceeded() {
    let line = size_report("bootstrap.ign", 300_000, "aws");
    assert!(line.over);
    assert_eq!(line.limit.as_ref().map(|l| l.bytes), Some(16_384));
    let text = line.to_string();
    assert!(
        text.starts_with("bootstrap.ign: 293.0 KiB (exceeds the aws limit"),
        "{text}"
    );
    assert!(text.contains("16384 bytes"), "{text}");
    assert!(
        text.ends_with("serve this file over HTTPS, or compress it"),
        "{text}"
    );
    let small = size_report("master.ign", 1_800, "aws");
    assert!(!small.over);
    assert!(small.to_string().contains("within"), "{small}");
    assert!(!small.to_string().contains("pointer"), "{small}");
    assert!(
        !size_report("x", 16_384, "aws").over,
        "the limit itself fits"
    );
}

#[test]
fn base64_limits_count_the_encoded_size() {
    let limit = platform_limit("openstack").expect("openstack in table");
    assert_eq!(limit.measured, "base64");
    let line = size_report("bootstrap.ign", 50_000, "openstack");
    assert_eq!(line.counted_bytes, 66_668);
    assert!(
        line.over,
        "50 000 raw bytes are 66 668 in base64, above 65 535"
    );
    assert!(line.to_string().contains("after base64 encoding"));
}

#[test]
fn platforms_without_a_limit_only_print_the_size() {
    let line = size_report("bootstrap.ign", 5 * 1024 * 1024, "none");
    assert!(!line.over && line.limit.is_none());
    assert_eq!(line.to_string(), "bootstrap.ign: 5.0 MiB");
}
