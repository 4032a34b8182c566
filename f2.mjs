const { request } = await import('/work/main/node_modules/.pnpm/undici@7.30.2/node_modules/undici/index.js'); const r = await request('http://127.0.0.1:39555/'); await r.body.text(); process.exit(0);
