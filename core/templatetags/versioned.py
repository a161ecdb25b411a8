"""{% versioned fragment %}...{% endversioned %}: the markup between, cached under a
`core.versions.Fragment` (its key names the versions of the data it shows, and the language), so a
table is rendered once per change of what it shows and shared by the viewers it is the same for."""

from __future__ import annotations

from django import template

register = template.Library()


class VersionedNode(template.Node):
    def __init__(self, nodelist, fragment):
        self.nodelist = nodelist
        self.fragment = fragment

    def render(self, context):
        fragment = self.fragment.resolve(context)
        html = fragment.get() if fragment else None
        if html is None:
            html = self.nodelist.render(context)
            if fragment:
                fragment.set(html)
        return html


@register.tag
def versioned(parser, token):
    try:
        _tag, fragment = token.split_contents()
    except ValueError:
        raise template.TemplateSyntaxError("{% versioned %} takes one argument: a Fragment") from None
    nodelist = parser.parse(("endversioned",))
    parser.delete_first_token()
    return VersionedNode(nodelist, parser.compile_filter(fragment))
