/** Writing a whole byte array to a socket, which may take less of it at a time. */

/**
 * Writes all of `bytes` to `socket`; `failed` sees a failed write first. Not an async
 * function: a relayed stream writes once a chunk, nearly always whole at the first try,
 * and a suspended call costs more.
 */
export function writeAll(
  socket: Deno.Conn,
  bytes: Uint8Array,
  failed?: (error: unknown) => never,
): Promise<void> {
  return socket.write(bytes).then(
    (written) =>
      written < bytes.byteLength ? writeAll(socket, bytes.subarray(written), failed) : undefined,
    failed,
  );
}
