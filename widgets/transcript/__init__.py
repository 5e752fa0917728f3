"""The transcript of one session: the Line-API widget that draws only the rows on screen (`transcript`), one row
as a strip (`row_strip`), the rows it shows and their per-estimator numbers (`model`), the column header
(`columns`), one-line previews and number formats (`previews`), search (`search`, `search_bar`), jumps
(`navigation`), the inspector screen's search, filter and jump actions (`inspector_views`) and the "N new
entries" indicator (`new_entries`).

Row marks (cache-TTL expiry today; the compaction forecast's cut point, kept tail, boundaries next) come from
`inspector.figures.marks`; this package only draws them.
"""
