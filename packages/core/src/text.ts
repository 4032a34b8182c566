/**
 * Text laid out for a terminal: the CLI's and the MCP server's help pages wrap their prose with
 * the same rule, so the two read alike.
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
