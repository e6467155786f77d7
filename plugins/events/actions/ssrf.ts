/**
 * The guard every webhook passes before it connects: a workflow's URL must not reach the
 * service's own network. The host is resolved once (every address it has), refused when any
 * address is loopback, private, link-local (cloud metadata at 169.254.169.254 among them), CGNAT,
 * unique-local, multicast, unspecified or otherwise reserved — unless the host name or the address
 * is in `allowHosts` — and the request then connects to the very address that was checked, so a
 * second DNS answer cannot point it elsewhere (DNS rebinding).
 */
import * as dns from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Ranges a webhook may not reach unless allowed (IPv4-mapped IPv6 addresses are checked as IPv4). */
const BLOCKED = (() => {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8], // "this network", 0.0.0.0
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, cloud metadata
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation
    ['203.0.113.0', 24], // documentation
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ];
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: [string, number][] = [
    ['::', 128], // unspecified
    ['::1', 128], // loopback
    ['64:ff9b::', 96], // NAT64: reaches IPv4 addresses, private ones included
    ['64:ff9b:1::', 48], // local-use NAT64
    ['100::', 64], // discard
    ['2001:db8::', 32], // documentation
    ['fc00::', 7], // unique local
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
  ];
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

/** Whether an IP address is one a webhook may not reach (without an allowHosts entry). */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse
  return BLOCKED.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export interface ResolvedTarget {
  /** The address to connect to: checked, and the only one used. */
  address: string;
  family: 4 | 6;
}

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** The URL's host without IPv6 brackets, lower-cased. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function normaliseAllowed(allowHosts: readonly string[]): Set<string> {
  return new Set(
    allowHosts.map((h) =>
      h
        .trim()
        .replace(/^\[(.*)\]$/, '$1')
        .toLowerCase(),
    ),
  );
}

/**
 * Resolves the URL's host and checks every address; throws an Error naming the host and the
 * refused address. Only http and https are allowed.
 */
export async function resolveTarget(url: URL, allowHosts: readonly string[], lookup: LookupAll = systemLookup): Promise<ResolvedTarget> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`webhook refused: only http and https URLs are called (got ${url.protocol.slice(0, -1)})`);
  }
  const host = hostOf(url);
  const allowed = normaliseAllowed(allowHosts);
  const hostAllowed = allowed.has(host);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (err) {
      throw new Error(`webhook host '${host}' did not resolve: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
        cause: err,
      });
    }
    if (addresses.length === 0) throw new Error(`webhook host '${host}' did not resolve to any address`);
  }
  if (!hostAllowed) {
    for (const { address } of addresses) {
      if (isBlockedAddress(address) && !allowed.has(address.toLowerCase())) {
        throw new Error(
          `webhook refused: host '${host}' resolves to ${address}, a private, loopback, link-local or reserved address ` +
            `(allow it with the events plugin's option webhooks.allowHosts)`,
        );
      }
    }
  }
  const first = addresses[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
