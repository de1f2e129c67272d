"""The admin site's names, and its "View site" link pointing at the curation dashboard."""

from django.contrib import admin

admin.site.site_header = "memsite administration"
admin.site.site_title = "memsite admin"
admin.site.index_title = "Curation"
admin.site.site_url = "/dashboard/"
# The model list in a sidebar squeezes the memory list; the breadcrumbs lead back to it.
admin.site.enable_nav_sidebar = False
