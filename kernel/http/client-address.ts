/**
 * The key a client's connections are counted under: its IPv4 address, or the /64 prefix of its
 * IPv6 address (one subscriber usually holds a whole /64, so a per-address count would not bound it).
 */
import { isIPv6 } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

export function clientAddressKey(address: string | undefined): string {
  if (!address) return '';
  const mapped = MAPPED_V4.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address.split('%')[0]).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, '::' expanded (an embedded IPv4 tail counts as two groups). */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) =>
    part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g.toLowerCase().replace(/^0+(?=.)/, '')])) : [];
  const left = groups(head);
  const right = groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right];
}
