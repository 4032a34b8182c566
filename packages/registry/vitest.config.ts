export { default } from '@cloudcall/vitest-config';
