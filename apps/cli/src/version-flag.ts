/** `cloudcall --version` (or `-v`) alone: answered before anything else loads. */
export function asksVersion(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v');
}
