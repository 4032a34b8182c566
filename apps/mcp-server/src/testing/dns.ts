/**
 * A DNS server on loopback (UDP) that answers A queries for names it is given, with addresses a
 * test can change at any moment: Docker's DNS for a Compose service whose replicas come and go.
 * Messages are read and written with dns-packet; NXDOMAIN for a name it does not know.
 */
import { createSocket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

export interface StandInDns {
  port: number;
  /** The A records of each name (lower case, no trailing dot); change them to move the service. */
  records: Map<string, string[]>;
  /** The names asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

const NXDOMAIN = 3;

export async function startStandInDns(): Promise<StandInDns> {
  const socket = createSocket('udp4');
  const dns: StandInDns = { port: 0, records: new Map(), asked: [], close: async () => undefined };
  socket.on('message', (message, peer) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return; // not a DNS message
    }
    const question = query.questions?.[0];
    if (query.type !== 'query' || query.questions?.length !== 1 || !question) return;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    dns.asked.push(name);
    const known = dns.records.get(name);
    const addresses = question.type === 'A' ? (known ?? []) : [];
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (known ? 0 : NXDOMAIN),
      questions: [question],
      // TTL 1 s (nginx's `valid=` overrides it).
      answers: addresses.map((data) => ({
        type: 'A' as const,
        class: 'IN' as const,
        name: question.name,
        ttl: 1,
        data,
      })),
    });
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  dns.port = socket.address().port;
  dns.close = () => new Promise((resolve) => socket.close(() => resolve()));
  return dns;
}
