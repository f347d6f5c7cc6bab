x();
//# sourceMappingURL=data:application/json;charset=utf-8;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbImkudHMiXSwibmFtZXMiOlsibiJdLCJtYXBwaW5ncyI6IkFBQUFBIn0=
