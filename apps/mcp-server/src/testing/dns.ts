/**
 * A DNS server on loopback (UDP) that answers A queries for names it is given, with addresses a
 * test can change at any moment: Docker's DNS for a Compose service whose replicas come and go.
 * Enough of RFC 1035 for nginx's resolver: one question per query, A records, NXDOMAIN otherwise.
 */
import { createSocket } from 'node:dgram';

export interface StandInDns {
  port: number;
  /** The A records of each name (lower case, no trailing dot); change them to move the service. */
  records: Map<string, string[]>;
  /** The names asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

export async function startStandInDns(): Promise<StandInDns> {
  const socket = createSocket('udp4');
  const dns: StandInDns = { port: 0, records: new Map(), asked: [], close: async () => undefined };
  socket.on('message', (query, peer) => {
    // The question: labels (length, bytes) up to a zero byte, then its type and class.
    const labels: string[] = [];
    let at = 12;
    while (at < query.length && query[at] !== 0) {
      const length = query[at] as number;
      labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
      at += 1 + length;
    }
    const questionEnd = at + 5;
    if (query.length < questionEnd || query.readUInt16BE(4) !== 1) return; // not one question
    const name = labels.join('.').toLowerCase();
    const type = query.readUInt16BE(at + 1);
    dns.asked.push(name);
    const known = dns.records.get(name);
    const addresses = type === 1 ? (known ?? []) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the query's id
    // A response, recursion desired and available; NXDOMAIN for a name it does not know.
    header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(1, 6); // TTL 1 s (nginx's `valid=` overrides it)
      record.writeUInt16BE(4, 10);
      for (const [index, part] of address.split('.').entries()) record[12 + index] = Number(part);
      return record;
    });
    socket.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...answers]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  dns.port = socket.address().port;
  dns.close = () => new Promise((resolve) => socket.close(() => resolve()));
  return dns;
}
