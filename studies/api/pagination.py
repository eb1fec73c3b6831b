from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """``?page=N&page_size=M``; at most 1,000 rows a page so a client cannot ask for all."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
