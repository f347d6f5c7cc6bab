// Pricing: the hot part of main.ts's loop. unitPrice takes most of the time; V8 inlines it
// into priceLines once warm, and a minifier renames both.
export interface Line {
	sku: number;
	qty: number;
}

export function priceLines(lines: Line[]): number {
	let total = 0;
	for (const l of lines) total += unitPrice(l.sku) * l.qty;
	return total;
}

function unitPrice(sku: number): number {
	let p = sku % 97;
	for (let k = 0; k < 2000; k++) p = (p * 31 + k) % 100003;
	return p;
}
