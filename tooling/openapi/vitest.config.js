import preset from '@cloudcall/vitest-config';

// The shared preset looks for src/**/*.test.ts; this package is plain JavaScript with its tests in test/.
export default { ...preset, test: { ...preset.test, include: ['test/**/*.test.js'] } };
