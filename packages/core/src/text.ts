/**
 * Text laid out for a terminal: the CLI's and the MCP server's help pages wrap their prose with
 * the same rule, so the two read alike; and names shown to a person with their control
 * characters made visible.
 */

/** `text` in lines of at most `width` characters, broken at spaces; a longer word has a line of its own. */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Characters a terminal or a dialog acts on instead of showing: controls (C0, DEL, C1: a newline,
 * an ANSI escape), formatting characters (bidirectional overrides and isolates, zero-width
 * spaces, the byte-order mark), line and paragraph separators, and unpaired surrogates. The
 * joiner and the tag characters inside emoji (👩‍👩‍👧, a subdivision's flag) are let be.
 */
let unshown: RegExp | undefined;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/**
 * Printable ASCII, none of which `unshown` matches: most text is this, and is let through without
 * it, whose Unicode classes V8 builds from ICU's tables when the expression is made (so it is
 * made when first needed, not when this module loads).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * `text` with every character that would act rather than show written as an escape: `\n`, `\r`,
 * `\t`, `\x1b` (below U+0100), `\u202e`, `\u{e0001}`. For names and other values from the API or
 * a caller, wherever a person reads them: a confirmation question, a table, an error. A name
 * cannot then start a new line, recolour the terminal or reverse the text after it.
 */
export function showControls(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  unshown ??= /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]|(?![\u200d\u{e0020}-\u{e007f}])\p{Cf}/gu;
  return text.replace(unshown, (char) => {
    const named = NAMED[char];
    if (named) return named;
    const code = char.codePointAt(0) as number;
    const hex = code.toString(16).padStart(code < 0x100 ? 2 : 4, '0');
    return code < 0x100 ? `\\x${hex}` : code > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
  });
}
