// A path segment the router would have to decode and cannot (a stray `%`, bytes that are not
// UTF-8), or one that decodes to a NUL, which no id can hold: refused before routing, where
// the decoder's exception used to surface as a 500.

/** why the raw request path cannot be read, or null */
export function pathProblem(rawPath: string): string | null {
  if (!rawPath.includes('%')) return null;
  for (const segment of rawPath.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return `The request path is not valid percent-encoded UTF-8: ${JSON.stringify(segment.slice(0, 100))}`;
    }
    if (decoded.includes('\0')) return 'The request path holds a NUL character (%00), which no id can contain';
  }
  return null;
}
