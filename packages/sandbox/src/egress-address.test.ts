import { describe, expect, it } from 'vitest';
import { addressRefusal } from './egress-address.ts';

describe('addressRefusal: where the install step may connect', () => {
  it.each([
    // Public addresses: open to every entry.
    ['104.16.0.35', undefined, undefined],
    ['2606:4700::6810:85e5', undefined, undefined],
    // Cloud metadata and the rest of link-local: closed to every entry.
    ['169.254.169.254', 'link_local', 'link_local'],
    ['169.254.0.1', 'link_local', 'link_local'],
    ['fe80::1', 'link_local', 'link_local'],
    ['::ffff:169.254.169.254', 'link_local', 'link_local'],
    // Loopback and private ranges: only a deployment entry (an internal mirror) reaches them.
    ['127.0.0.1', 'loopback', undefined],
    ['127.1.2.3', 'loopback', undefined],
    ['::1', 'loopback', undefined],
    ['::ffff:127.0.0.1', 'loopback', undefined],
    ['::ffff:7f00:1', 'loopback', undefined],
    ['10.1.2.3', 'private', undefined],
    ['172.16.0.1', 'private', undefined],
    ['172.31.255.255', 'private', undefined],
    ['192.168.1.1', 'private', undefined],
    ['100.64.0.1', 'private', undefined],
    ['fd00::5', 'private', undefined],
    ['fc00::1', 'private', undefined],
    ['::ffff:10.0.0.1', 'private', undefined],
    // Just outside the private ranges.
    ['172.32.0.1', undefined, undefined],
    ['11.0.0.1', undefined, undefined],
    // "This network", multicast, broadcast, reserved, documentation: closed to every entry.
    ['0.0.0.0', 'reserved', 'reserved'],
    ['0.1.2.3', 'reserved', 'reserved'],
    ['224.0.0.1', 'reserved', 'reserved'],
    ['255.255.255.255', 'reserved', 'reserved'],
    ['240.0.0.1', 'reserved', 'reserved'],
    ['192.0.2.1', 'reserved', 'reserved'],
    ['::', 'reserved', 'reserved'],
    ['ff02::1', 'reserved', 'reserved'],
    // IPv6 forms that carry traffic to an IPv4 address (here 127.0.0.1 or 10.0.0.1).
    ['64:ff9b::7f00:1', 'reserved', 'reserved'],
    ['2002:7f00:1::1', 'reserved', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'reserved', 'reserved'],
    ['::7f00:1', 'reserved', 'reserved'],
    // Not an address at all (a name must be resolved first).
    ['localhost', 'reserved', 'reserved'],
    ['', 'reserved', 'reserved'],
  ] as const)('%s: repository entry %s, deployment entry %s', (address, forRepository, forDeployment) => {
    expect(addressRefusal(address, false)).toBe(forRepository);
    expect(addressRefusal(address, true)).toBe(forDeployment);
  });
});
