/**
 * Preloaded into CLI processes under test (NODE_OPTIONS=--require): any host name but a loopback
 * one fails to resolve (ENOTFOUND), so a command that would go to the platform's API fails at
 * once, and says so on stderr, instead of reaching anything off this machine.
 */
const dns = require('node:dns');

const lookup = dns.lookup;
dns.lookup = function loopbackOnly(hostname, ...rest) {
  if (hostname === 'localhost' || /^(127\.|::1$|::ffff:127\.)/.test(hostname)) {
    return lookup.call(this, hostname, ...rest);
  }
  const done = rest.find((item) => typeof item === 'function');
  process.stderr.write(`loopback-only: refused to resolve ${hostname}\n`);
  process.nextTick(() =>
    done(Object.assign(new Error(`${hostname} is not loopback`), { code: 'ENOTFOUND' })),
  );
};
