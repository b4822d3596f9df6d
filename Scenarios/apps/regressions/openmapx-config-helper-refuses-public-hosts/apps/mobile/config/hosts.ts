/**
 * A host no phone on the open internet reaches: this machine, the emulator's alias for it,
 * a LAN. A release pointed at one installs, then fails for everyone but its builder.
 */
export function isNonPublicHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return true;
  const octets = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (!octets) return true;
  const [first, second] = [Number(octets[1]), Number(octets[2])];
  if (first === 127 || first === 10) return true;
  if (first === 172 && second >= 16 && second <= 31) return true;
  return first === 192 && second === 168;
}

