/**
 * `offset` as a small integer when it is one (below 2^30): a handle's offset may arrive as a
 * heap number (the handle's fields hold doubles once any handle held one), and storing one
 * into an iterator's offset field (a table iterator's, a block iterator's) turns that
 * field's representation from small integer to double. V8 then gives every iterator a new
 * hidden class and deprecates the old, so a kept iterator made before (`@shale/db`'s
 * iterator-shape.ts) would no longer keep the live one alive. Offsets of 1 GiB and more
 * still go to a double.
 */
export function smallOffset(offset: number): number {
  return offset < 0x40000000 ? offset | 0 : offset;
}
