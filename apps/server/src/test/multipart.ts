import { Readable } from 'node:stream';

/**
 * A request body that ends without its closing boundary only once the server has read the
 * first chunk and asked for more: the upload's part is handed to the route before the body
 * ends, as it is over a real connection (where the cut-short part errors on its own stream).
 */
export function unterminatedBody(text: string): Readable {
  let reads = 0;
  return new Readable({
    read() {
      reads++;
      if (reads === 1) this.push(text);
      // The end comes after the reader asked again and the turn's promises (the route) ran.
      else if (reads === 2) setImmediate(() => this.push(null));
    },
  });
}
