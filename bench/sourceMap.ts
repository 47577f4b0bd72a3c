// Just enough of a source map reader to name the source file and line of a place in a bundle, so a
// profile of bundled code points at src/… lines. (Version 3 maps: base64 VLQ `mappings`.)

export interface SourceMapV3 {
  sources: string[];
  mappings: string;
}

/** [generated column, source index, source line, source column], all 0-based. */
type Segment = [number, number, number, number];

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((char, i) => [char, i]));

/** Decodes one segment's VLQ fields. */
function decodeVlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`sourceMap: "${char}" is not a base64 digit`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

export class SourceLookup {
  private readonly lines: Segment[][] = [];

  constructor(private readonly map: SourceMapV3) {
    let source = 0;
    let sourceLine = 0;
    let sourceColumn = 0;
    for (const line of map.mappings.split(';')) {
      const segments: Segment[] = [];
      let column = 0;
      for (const field of line.split(',')) {
        if (field === '') continue;
        const [dColumn = 0, dSource, dLine, dSourceColumn] = decodeVlq(field);
        column += dColumn;
        if (dSource === undefined) continue;
        source += dSource;
        sourceLine += dLine ?? 0;
        sourceColumn += dSourceColumn ?? 0;
        segments.push([column, source, sourceLine, sourceColumn]);
      }
      this.lines.push(segments);
    }
  }

  /** The source file and 1-based line of a 0-based generated place, or undefined if unmapped. */
  find(line: number, column: number): { source: string; line: number } | undefined {
    const segments = this.lines[line];
    if (segments === undefined || segments.length === 0) return undefined;
    let best = segments[0]!;
    for (const segment of segments) {
      if (segment[0] > column) break;
      best = segment;
    }
    const source = this.map.sources[best[1]];
    return source === undefined ? undefined : { source, line: best[2] + 1 };
  }
}
