"""The wiring of the pages that are forms: Admin (members, audit, trash), Review, and the Data
page's upload (the form, then the project built from it, previewed and created)."""
