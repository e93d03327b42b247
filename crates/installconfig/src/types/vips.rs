//! The virtual-IP fields that the baremetal and vsphere platforms share.
//!
//! Both platforms spell these fields the same way in install-config.yaml (apiVIPs,
//! ingressVIPs, the deprecated apiVIP/ingressVIP and loadBalancer). The structs keep their
//! own field declarations so that the schema and `explain` output stay per platform; this
//! trait lets conversion, validation and the accessors handle the two platforms with one
//! piece of code each.

use super::baremetal::{BaremetalPlatform, DnsRecordsType, LoadBalancer};
use super::cidr::IpAddrString;
use super::platform::Platform;
use super::vsphere::VspherePlatform;

/// A platform whose API and ingress are reached through virtual IPs.
pub trait VipPlatform {
    /// The platform's key under `platform` (used in field paths).
    fn key(&self) -> &'static str;
    /// `apiVIPs`.
    fn api_vips(&self) -> &[IpAddrString];
    /// `ingressVIPs`.
    fn ingress_vips(&self) -> &[IpAddrString];
    /// `loadBalancer`.
    fn load_balancer(&self) -> &Option<LoadBalancer>;
    /// `dnsRecordsType`, as written (unset means `Internal`).
    fn dns_records_type(&self) -> Option<DnsRecordsType>;
    /// The deprecated single VIPs, each with its field name and the list it converts into
    /// (API first, then ingress).
    fn deprecated_vips_mut(&mut self) -> [DeprecatedVip<'_>; 2];
}

/// A deprecated single-VIP field: its name, its value and the list that replaces it.
pub type DeprecatedVip<'a> = (
    &'static str,
    &'a mut Option<IpAddrString>,
    &'a mut Vec<IpAddrString>,
);

macro_rules! impl_vip_platform {
    ($ty:ty, $platform:expr) => {
        impl VipPlatform for $ty {
            fn key(&self) -> &'static str {
                $platform.name()
            }
            fn api_vips(&self) -> &[IpAddrString] {
                &self.api_vips
            }
            fn ingress_vips(&self) -> &[IpAddrString] {
                &self.ingress_vips
            }
            fn load_balancer(&self) -> &Option<LoadBalancer> {
                &self.load_balancer
            }
            fn dns_records_type(&self) -> Option<DnsRecordsType> {
                self.dns_records_type
            }
            fn deprecated_vips_mut(&mut self) -> [DeprecatedVip<'_>; 2] {
                [
                    ("apiVIP", &mut self.api_vip, &mut self.api_vips),
                    ("ingressVIP", &mut self.ingress_vip, &mut self.ingress_vips),
                ]
            }
        }
    };
}

impl_vip_platform!(BaremetalPlatform, Platform::Baremetal);
impl_vip_platform!(VspherePlatform, Platform::Vsphere);
