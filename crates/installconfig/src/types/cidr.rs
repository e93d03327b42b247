//! Small string-backed network types with their own schema formats.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use ipnet::IpNet;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An IP network in CIDR notation, kept exactly as written (host bits included) so that
/// validation can point out a CIDR that is not a network address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cidr(pub IpNet);

impl Cidr {
    /// Parses "a.b.c.d/n" or an IPv6 equivalent.
    pub fn parse(s: &str) -> Result<Self, String> {
        IpNet::from_str(s.trim())
            .map(Cidr)
            .map_err(|_| format!("{s:?} is not a CIDR such as 10.0.0.0/16 or fd00::/48"))
    }

    /// True for an IPv4 network.
    pub fn is_ipv4(&self) -> bool {
        matches!(self.0, IpNet::V4(_))
    }

    /// The network with host bits cleared.
    pub fn masked(&self) -> IpNet {
        self.0.trunc()
    }

    /// Prefix length.
    pub fn prefix_len(&self) -> u8 {
        self.0.prefix_len()
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for Cidr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Cidr::parse(s)
    }
}

impl Serialize for Cidr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Cidr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Cidr::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Cidr {
    fn schema_name() -> Cow<'static, str> {
        "Cidr".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "cidr"})
    }
}

/// An IP address kept as the text the user wrote; validation reports values that are not
/// IP addresses with the field path instead of failing the whole parse.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct IpAddrString(pub String);

impl IpAddrString {
    /// The parsed address, if the text is one.
    pub fn ip(&self) -> Option<std::net::IpAddr> {
        self.0.trim().parse().ok()
    }
}

impl fmt::Display for IpAddrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl JsonSchema for IpAddrString {
    fn schema_name() -> Cow<'static, str> {
        "IpAddrString".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "ip"})
    }
}
