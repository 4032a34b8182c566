/**
 * Loopback ports: one that is free, and whether something accepts connections on one. Plain
 * JavaScript (with net.d.mts) so that the benchmark's plain node can use it too.
 */
import { connect, createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something on 127.0.0.1 accepts a TCP connection on `port`. */
export function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
