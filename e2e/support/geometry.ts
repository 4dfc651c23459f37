import type { Locator, Page } from 'playwright-core';

/** Geometry checks on what the browser laid out (bounding boxes in CSS pixels of the viewport). */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The element's box; it must be on the page (rendered, not `display: none`). */
export async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`no box for ${locator.toString()}`);
  return box;
}

/** The area two boxes share (0 when they do not meet). */
export function overlapArea(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Whether `box` lies wholly inside `outer` (within a pixel of rounding). */
export function inside(box: Box, outer: Box): boolean {
  return (
    box.x >= outer.x - 1 &&
    box.y >= outer.y - 1 &&
    box.x + box.width <= outer.x + outer.width + 1 &&
    box.y + box.height <= outer.y + outer.height + 1
  );
}

/** How many CSS pixels the page is wider than the window: 1 at most is rounding, more scrolls sideways. */
export function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** The viewport as a box. */
export function viewportBox(page: Page): Box {
  const size = page.viewportSize();
  if (!size) throw new Error('no viewport');
  return { x: 0, y: 0, width: size.width, height: size.height };
}

/**
 * The element the browser hit-tests at the centre of `locator`'s box: the control a click
 * there reaches. True when that is the element itself or inside it (nothing lies over it).
 */
export async function onTop(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

/**
 * Whether a table cell is wholly shown where the table is now scrolled: 'shown', or what is
 * wrong — outside the table's visible part or the window, under a pinned column of its row,
 * or its content cut (wider than the cell).
 */
export async function cellShown(cell: Locator): Promise<string> {
  return cell.evaluate((td) => {
    const r = td.getBoundingClientRect();
    const holder = td.closest('.ant-table-content, .ant-table-body') ?? td.closest('table');
    if (!holder) return 'not in a table';
    const h = holder.getBoundingClientRect();
    if (r.left < h.left - 1 || r.right > h.right + 1) return 'outside the visible part of the table';
    if (r.left < -1 || r.right > window.innerWidth + 1) return 'outside the window';
    const pinned = '.ant-table-cell-fix-left, .ant-table-cell-fix-right';
    if (!td.matches(pinned)) {
      for (const other of Array.from(td.parentElement?.querySelectorAll(pinned) ?? [])) {
        const o = other.getBoundingClientRect();
        if (Math.min(r.right, o.right) - Math.max(r.left, o.left) > 1) return 'under a pinned column';
      }
    }
    if (td.scrollWidth > td.clientWidth + 1) return 'content cut';
    return 'shown';
  });
}

/** The cell of `row` in the column whose header reads `title`. */
export async function cellUnder(row: Locator, title: string): Promise<Locator> {
  const table = row.locator('xpath=ancestor::div[contains(@class,"ant-table-container")]');
  const titles = await table.locator('thead th').allInnerTexts();
  const index = titles.findIndex((text) => text.trim() === title);
  if (index < 0) throw new Error(`no column "${title}" in ${titles.join(' | ')}`);
  return row.locator('> td').nth(index);
}
