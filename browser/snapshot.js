// The page walk of a snapshot. It runs in the agent's isolated world of the
// main frame (page scripts cannot see nor change it) and returns the page
// as a tree of {r: role, n: name, v: value, p: properties, e: ref index,
// c: children}, the same shape the accessibility tree gives the Go
// renderer. Roles and names are Blink's own (Element.computedRole and
// computedName, the ComputedAccessibilityInfo feature the browser is
// started with), so they match the accessibility tree; the walk only
// skips what that tree ignores (display:none, aria-hidden, inert) and
// reads the states of form controls. The elements that get a ref are kept
// in globalThis.__hermesRefs (index e-1) for the actions.
//
// Arguments: named (the roles whose name is shown; null: every role),
// interactive (the roles that get a ref).
function (named, interactive) {
	const root = document.documentElement;
	if (!root || typeof root.computedRole !== 'string') return null;
	const refs = [];
	const named_ = named ? new Set(named) : null;
	const refRoles = new Set(interactive);
	const valueRoles = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'scrollbar', 'progressbar', 'meter']);
	const checkRoles = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
	const noInputValue = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden', 'color']);
	const attr = (el, a) => el.getAttribute(a);
	const collapse = s => s.replace(/\s+/g, ' ').trim();

	function value(el, role) {
		if (el instanceof HTMLInputElement) {
			if (noInputValue.has(el.type)) return '';
			return el.type === 'password' ? '\u2022'.repeat(el.value.length) : el.value;
		}
		if (el instanceof HTMLTextAreaElement) return el.value;
		if (el instanceof HTMLSelectElement) return el.selectedOptions.length ? el.selectedOptions[0].label : '';
		if (!valueRoles.has(role)) return '';
		const v = attr(el, 'aria-valuetext') ?? attr(el, 'aria-valuenow');
		if (v != null) return v;
		if (el.isContentEditable) return el.innerText;
		if (el instanceof HTMLProgressElement || el instanceof HTMLMeterElement) return String(el.value);
		return '';
	}

	function props(el, role) {
		const p = {};
		if (role === 'heading') {
			p.level = attr(el, 'aria-level') || (/^H[1-6]$/.test(el.tagName) ? el.tagName[1] : '2');
		} else if (role === 'treeitem' || role === 'row') {
			const l = attr(el, 'aria-level');
			if (l) p.level = l;
		}
		if (checkRoles.has(role)) {
			if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
				p.checked = el.indeterminate ? 'mixed' : String(el.checked);
			} else if (attr(el, 'aria-checked')) {
				p.checked = attr(el, 'aria-checked');
			}
		}
		if (attr(el, 'aria-pressed')) p.pressed = attr(el, 'aria-pressed');
		if (el instanceof HTMLOptionElement) p.selected = String(el.selected);
		else if (attr(el, 'aria-selected')) p.selected = attr(el, 'aria-selected');
		if (attr(el, 'aria-expanded')) p.expanded = attr(el, 'aria-expanded');
		if (el.matches(':disabled') || attr(el, 'aria-disabled') === 'true') p.disabled = 'true';
		if (el.required || attr(el, 'aria-required') === 'true') p.required = 'true';
		if (((el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.readOnly && valueRoles.has(role)) ||
			attr(el, 'aria-readonly') === 'true') p.readonly = 'true';
		return p;
	}

	// children returns the nodes rendered as el's children: its shadow
	// tree, a slot's assigned nodes, a select's options.
	function children(el) {
		if (el.shadowRoot) return el.shadowRoot.childNodes;
		if (el instanceof HTMLSlotElement) {
			const a = el.assignedNodes({flatten: true});
			return a.length ? a : el.childNodes;
		}
		return el.childNodes;
	}

	// walk returns the node of el (null when ignored with its subtree);
	// inSelect: el is in a select, whose options have no box.
	function walk(el, inSelect) {
		if (attr(el, 'aria-hidden') === 'true' || el.inert) return null;
		if (!inSelect && !el.checkVisibility()) return null;
		// Hidden by visibility, el is left out but its children may show.
		const visible = inSelect || el.checkVisibility({visibilityProperty: true});
		let role = visible ? el.computedRole || '' : '';
		// An image with an empty alt and no other name is decoration, which
		// the accessibility tree leaves out.
		if (el instanceof HTMLImageElement && attr(el, 'alt') === '' && !el.computedName) role = '';
		const n = {r: role};
		if (role && (!named_ || named_.has(role))) n.n = el.computedName || '';
		if (role) {
			const v = value(el, role);
			if (v) n.v = v;
			const p = props(el, role);
			for (const k in p) { n.p = p; break; }
			if (refRoles.has(role)) {
				refs.push(el);
				n.e = refs.length;
			}
		}
		const kids = [];
		if (el instanceof HTMLSelectElement) {
			for (const o of el.options) {
				const c = walk(o, true);
				if (c) kids.push(c);
			}
		} else {
			for (const c of children(el)) {
				if (c.nodeType === Node.TEXT_NODE) {
					if (!visible) continue;
					const t = collapse(c.data);
					if (t) kids.push({r: 'StaticText', n: t});
				} else if (c.nodeType === Node.ELEMENT_NODE) {
					const k = walk(c, inSelect);
					if (k) kids.push(k);
				}
			}
		}
		if (kids.length) n.c = kids;
		return n;
	}

	const tree = walk(root, false) || {r: ''};
	globalThis.__hermesRefs = refs;
	return JSON.stringify({r: 'RootWebArea', n: document.title, c: [tree]});
}
