import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Why an address is closed to the install step. */
export type AddressRefusal = 'loopback' | 'link_local' | 'private' | 'reserved';

/**
 * Never reachable, whoever allowed the host: link-local (169.254.0.0/16 holds every cloud's
 * metadata service and its credentials), "this network", multicast, broadcast and the
 * reserved blocks, and IPv6 forms that carry traffic to an IPv4 address (NAT64, 6to4, Teredo):
 * through them a private IPv4 address would pass as a public IPv6 one.
 */
const RESERVED = new BlockList();
const LINK_LOCAL = new BlockList();
/** Reachable only through a deployment entry (NETWORK_ALLOW): an internal registry mirror. */
const LOOPBACK = new BlockList();
const PRIVATE = new BlockList();

LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
] as const)
  RESERVED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64: reaches any IPv4 address, the private ones too
  ['64:ff9b:1::', 48],
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['ff00::', 8], // multicast
] as const)
  RESERVED.addSubnet(net, bits, 'ipv6');
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // carrier-grade NAT: a provider's internal network
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6'); // unique local

/**
 * Why the egress proxy must not connect to `address` (an IP literal, as resolved), or
 * undefined when it may. `trusted`: the host was allowed by the deployment (NETWORK_ALLOW),
 * which may name a private or loopback mirror; a repository's entries (and the default
 * registries) reach public addresses only. Anything that is not an IP address is refused.
 */
export function addressRefusal(address: string, trusted: boolean): AddressRefusal | undefined {
  // BlockList also judges IPv4-mapped IPv6 (`::ffff:7f00:1`) by the IPv4 rules.
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (!family) return 'reserved';
  if (LINK_LOCAL.check(address, family)) return 'link_local';
  // Before the reserved blocks: ::1 lies inside ::/96.
  if (LOOPBACK.check(address, family)) return trusted ? undefined : 'loopback';
  if (PRIVATE.check(address, family)) return trusted ? undefined : 'private';
  return RESERVED.check(address, family) ? 'reserved' : undefined;
}
