const r = await fetch('http://127.0.0.1:39555/'); await r.text();
