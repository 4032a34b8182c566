import preset from '@cloudcall/vitest-config';

// Plain JavaScript with its tests in test/, like tooling/biome.
export default { ...preset, test: { ...preset.test, include: ['test/**/*.test.js'] } };
